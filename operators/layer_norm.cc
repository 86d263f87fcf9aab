// layer_norm: normalizes every row of X viewed as [left, right], right =
// prod(dims[begin_norm_axis:]) (spec §4.2).
#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

class LayerNormOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const auto x = ctx->GetInputDim("X");
    const int rank = static_cast<int>(x.size());
    const int axis = ctx->Attr<int>("begin_norm_axis");
    PADDLE_ENFORCE(axis >= 1 && axis < rank,
                   errors::InvalidArgument(Type(), ": begin_norm_axis ", axis,
                                           " must lie in [1, rank) = [1, ",
                                           rank, ") for X ", x));
    const int64_t left = framework::Product(x, 0, axis);
    const int64_t right = framework::Product(x, axis, rank);
    for (const char* slot : {"Scale", "Bias"}) {
      if (!ctx->HasInput(slot)) continue;
      const auto dims = ctx->GetInputDim(slot);
      PADDLE_ENFORCE_EQ(
          framework::Product(dims), right,
          errors::InvalidArgument(Type(), ": ", slot, " dims ", dims,
                                  " must hold prod(X.dims[", axis,
                                  ":]) = ", right, " values for X ", x));
    }
    ctx->SetOutputDim("Y", x);
    ctx->ShareLoD("X", "Y");
    ctx->SetOutputDim("Mean", {left});
    ctx->SetOutputDim("Variance", {left});
  }
};

class LayerNormOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "input, viewed as [left, right] at begin_norm_axis");
    AddInput("Scale", "[right] gain; absent = 1").AsDispensable();
    AddInput("Bias", "[right] offset; absent = 0").AsDispensable();
    AddOutput("Y", "normalized X, same shape");
    AddOutput("Mean", "[left] row means (training)").AsExtra();
    AddOutput("Variance", "[left] biased row variances (training)").AsExtra();
    AddAttr<float>("epsilon", "added to the variance").SetDefault(1e-5f);
    AddAttr<int32_t>("begin_norm_axis", "first normalized dim, in [1, rank)")
        .SetDefault(1);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(layer_norm,
                  paddle_lite::operators::LayerNormOp,
                  paddle_lite::operators::LayerNormOpMaker);
