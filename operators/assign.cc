// assign: Out = a copy of X (data, dims, LoD), for tensors and tensor
// arrays (ops.md 7.3).
#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

class AssignOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "tensor or tensor array");
    AddOutput("Out", "a copy of X");
  }
};

class AssignOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    // A tensor array is copied whole by the kernel; it has no dims.
    const framework::Variable* x = ctx->exec_context().InputVar("X");
    if (x != nullptr && x->IsType<framework::TensorList>()) return;
    ctx->SetOutputDim("Out", ctx->GetInputDim("X"));
    ctx->ShareLoD("X", "Out");
  }

  // Copies are type-agnostic: a tensor array (no declared element type)
  // can go through any of the kernels.
  framework::DataType IndicateDataType(
      const framework::KernelTypeContext& ctx) const override {
    framework::DataType type = ctx.InputDataType("X");
    return type == framework::DataType::kUndefined
               ? framework::DataType::kFloat32
               : type;
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(assign,
                  paddle_lite::operators::AssignOp,
                  paddle_lite::operators::AssignOpMaker);
