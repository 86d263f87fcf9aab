// scale: Out = scale * X + bias (bias_after_scale) or scale * (X + bias).
// A bound ScaleTensor (1 element) overrides the `scale` attribute.
#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

class ScaleOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  void InferShape(framework::InferShapeContext* ctx) const override {
    if (ctx->HasInput("ScaleTensor")) {
      const framework::DDim dims = ctx->GetInputDim("ScaleTensor");
      PADDLE_ENFORCE_EQ(framework::Product(dims), 1,
                        errors::InvalidArgument(
                            "scale: ScaleTensor must hold exactly 1 element, "
                            "but its dims are ",
                            dims, "."));
    }
    ctx->SetOutputDim("Out", ctx->GetInputDim("X"));
    ctx->ShareLoD("X", "Out");
  }
};

class ScaleOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "input tensor");
    AddInput("ScaleTensor", "1-element tensor overriding `scale`")
        .AsDispensable();
    AddOutput("Out", "scaled tensor, same shape as X");
    AddAttr<float>("scale", "multiplier").SetDefault(1.0f);
    AddAttr<float>("bias", "added before or after scaling").SetDefault(0.0f);
    AddAttr<bool>("bias_after_scale",
                  "true: scale * X + bias; false: scale * (X + bias)")
        .SetDefault(true);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(scale,
                  paddle_lite::operators::ScaleOp,
                  paddle_lite::operators::ScaleOpMaker);
