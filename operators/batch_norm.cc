// batch_norm: per-channel affine normalization (spec §4.1). At inference
// the running statistics are used and never updated.
#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

class BatchNormOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const auto x = ctx->GetInputDim("X");
    const auto layout = ctx->Attr<std::string>("data_layout");
    PADDLE_ENFORCE(x.size() >= 2 && x.size() <= 5,
                   errors::InvalidArgument(Type(),
                                           ": X must have rank 2 to 5, "
                                           "got ",
                                           x));
    const bool channel_last = layout == "NHWC" || layout == "NDHWC";
    const int64_t channels = channel_last ? x.back() : x[1];
    for (const char* slot : {"Scale", "Bias", "Mean", "Variance"}) {
      const auto dims = ctx->GetInputDim(slot);
      PADDLE_ENFORCE(
          dims.size() == 1 && dims[0] == channels,
          errors::InvalidArgument(Type(), ": ", slot, " dims ", dims,
                                  " must be [C] = [", channels, "] for X ", x,
                                  " (data_layout ", layout, ")"));
    }
    ctx->SetOutputDim("Y", x);
    ctx->ShareLoD("X", "Y");
  }
};

class BatchNormOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "input of rank 2 to 5; channels on dim 1 or last");
    AddInput("Scale", "per-channel scale [C]");
    AddInput("Bias", "per-channel bias [C]");
    AddInput("Mean", "running mean [C]");
    AddInput("Variance", "running variance [C]");
    AddInput("MomentumTensor", "training only").AsExtra();
    AddOutput("Y", "normalized X, same shape");
    AddOutput("MeanOut", "training only; aliases Mean").NeverWritten();
    AddOutput("VarianceOut", "training only; aliases Variance").NeverWritten();
    AddOutput("SavedMean", "training only").AsExtra();
    AddOutput("SavedVariance", "training only").AsExtra();
    AddOutput("ReserveSpace", "training only").AsExtra();
    AddAttr<float>("epsilon", "added to the variance").SetDefault(1e-5f);
    AddAttr<float>("momentum", "running-statistics update rate (training)")
        .SetDefault(0.9f);
    AddAttr<std::string>("data_layout",
                         "NCHW: channels on dim 1; NHWC: on the last dim")
        .SetDefault("NCHW")
        .InEnum({"NCHW", "NHWC", "AnyLayout", "NCDHW", "NDHWC"});
    AddAttr<bool>("is_test", "inference mode").SetDefault(false);
    AddAttr<bool>("use_global_stats", "use the running statistics")
        .SetDefault(false);
    AddAttr<bool>("trainable_statistics",
                  "with is_test, still use the batch statistics")
        .SetDefault(false);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(batch_norm,
                  paddle_lite::operators::BatchNormOp,
                  paddle_lite::operators::BatchNormOpMaker);
