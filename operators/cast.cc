// cast: Out = X converted to out_dtype (ops.md 7.2).
#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

class CastOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "input tensor");
    AddOutput("Out", "X converted to out_dtype");
    AddAttr<int32_t>("in_dtype", "X's type (VarType.Type number)");
    AddAttr<int32_t>("out_dtype", "Out's type (VarType.Type number)");
  }
};

class CastOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const int32_t out_dtype = ctx->Attr<int32_t>("out_dtype");
    PADDLE_ENFORCE(framework::IsValidDataType(out_dtype),
                   errors::InvalidArgument("cast: out_dtype ", out_dtype,
                                           " is not a known data type."));
    ctx->SetOutputDim("Out", ctx->GetInputDim("X"));
    ctx->ShareLoD("X", "Out");
  }

  // The kernel is chosen by what X really holds; in_dtype is only a fallback
  // for programs that do not declare X's type.
  framework::DataType IndicateDataType(
      const framework::KernelTypeContext& ctx) const override {
    framework::DataType type = ctx.InputDataType("X");
    if (type != framework::DataType::kUndefined) return type;
    const int32_t in_dtype = ctx.op().Attr<int32_t>("in_dtype");
    PADDLE_ENFORCE(framework::IsValidDataType(in_dtype),
                   errors::InvalidArgument("cast: in_dtype ", in_dtype,
                                           " is not a known data type."));
    return static_cast<framework::DataType>(in_dtype);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(cast,
                  paddle_lite::operators::CastOp,
                  paddle_lite::operators::CastOpMaker);
