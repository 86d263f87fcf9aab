// shape: Out = the runtime dims of Input as int32 (ops.md 8.11).
#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

class ShapeOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "tensor of any type; only its dims are read");
    AddOutput("Out", "1-D int32 tensor [rank(Input)]");
  }
};

class ShapeOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const framework::DDim dims = ctx->GetInputDim("Input");
    ctx->SetOutputDim("Out", {static_cast<int64_t>(dims.size())});
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(shape,
                  paddle_lite::operators::ShapeOp,
                  paddle_lite::operators::ShapeOpMaker);
