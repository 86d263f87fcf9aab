// fused_conv2d_transpose_pair: two conv2d_transpose ops in a row whose
// kernels equal their strides (no padding, dilation 1, one group, NCHW):
// Output = act2(deconv(act1(deconv(Input, Filter) + Bias), Filter2) +
// Bias2), with act1 and act2 from the fuse_activation* attributes. The
// fuse_conv2d_transpose_pair pass makes it from a DBNet head's two 2x
// upsamplings (24 channels to 24, then to the 1-channel probability map),
// so that the map between them (4 times the input's pixels) is never
// stored: the kernels keep a few of its rows at a time.
#include "framework/op_registry.h"
#include "operators/deconv_pair_shape.h"
#include "operators/fused_activation.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace operators {
namespace {

// One pixel-block deconvolution of `in` [N, C, H, W] by `filter` [C, M, KH,
// KW] (`which` names the filter in errors).
Conv2DGeometry PixelBlockOf(const std::string& op,
                            const char* which,
                            const framework::DDim& in,
                            const framework::DDim& filter) {
  PADDLE_ENFORCE(filter.size() == 4 && filter[0] == in[1] && filter[1] > 0 &&
                     filter[2] > 0 && filter[3] > 0,
                 errors::InvalidArgument(
                     op, ": ", which, " must be 4-D [", in[1],
                     ", M, KH, KW] with M, KH and KW positive for its input ",
                     in, ", got ", filter));
  Conv2DGeometry g;
  g.batch = in[0];
  g.in_channels = in[1];
  g.in_h = in[2];
  g.in_w = in[3];
  g.out_channels = filter[1];
  g.kernel_h = g.stride_h = filter[2];
  g.kernel_w = g.stride_w = filter[3];
  // Products past 2^31 would be no real size (and could overflow).
  PADDLE_ENFORCE(
      g.in_h < (int64_t{1} << 31) / g.kernel_h &&
          g.in_w < (int64_t{1} << 31) / g.kernel_w,
      errors::InvalidArgument(op, ": ", which, " ", filter, " upsamples ", in,
                              " past 2^31 pixels a side"));
  g.out_h = g.in_h * g.kernel_h;
  g.out_w = g.in_w * g.kernel_w;
  return g;
}

}  // namespace

DeconvPairGeometry ResolveDeconvPair(const std::string& op,
                                     const framework::DDim& input,
                                     const framework::DDim& filter,
                                     const framework::DDim& filter2) {
  PADDLE_ENFORCE(input.size() == 4,
                 errors::InvalidArgument(op,
                                         ": Input must be 4-D [N, C, H, "
                                         "W], got ",
                                         input));
  DeconvPairGeometry g;
  g.first = PixelBlockOf(op, "Filter", input, filter);
  g.second = PixelBlockOf(op, "Filter2", g.first.OutputDims(), filter2);
  return g;
}

class FusedConv2DTransposePairOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const DeconvPairGeometry g = ResolveDeconvPair(
        Type(), ctx->GetInputDim("Input"), ctx->GetInputDim("Filter"),
        ctx->GetInputDim("Filter2"));
    for (const auto& [slot, channels] :
         {std::pair<const char*, int64_t>{"Bias", g.first.out_channels},
          {"Bias2", g.second.out_channels}}) {
      if (!ctx->HasInput(slot)) continue;
      const framework::DDim bias = ctx->GetInputDim(slot);
      PADDLE_ENFORCE_EQ(
          framework::Product(bias), channels,
          errors::InvalidArgument(Type(), ": ", slot, " dims ", bias,
                                  " must hold one value per output channel (",
                                  channels, ")"));
    }
    ctx->SetOutputDim("Output", g.second.OutputDims());
    ctx->ShareLoD("Input", "Output");
  }
};

class FusedConv2DTransposePairOpMaker
    : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "activations [N, C, H, W]");
    AddInput("Filter", "the first deconvolution's [C, M1, KH1, KW1]");
    AddInput("Bias", "its bias [M1]").AsDispensable();
    AddInput("Filter2", "the second's [M1, M2, KH2, KW2]");
    AddInput("Bias2", "its bias [M2]").AsDispensable();
    AddOutput("Output", "[N, M2, H * KH1 * KH2, W * KW1 * KW2]");
    AddAttr<std::string>("fuse_activation", kFuseActivationDoc)
        .SetDefault("")
        .InEnum(FusedActivationNames());
    AddAttr<float>("fuse_alpha", kFuseAlphaDoc).SetDefault(0.0f);
    AddAttr<float>("fuse_beta", kFuseBetaDoc).SetDefault(0.0f);
    AddAttr<std::string>("fuse_activation2", "the second's activation")
        .SetDefault("")
        .InEnum(FusedActivationNames());
    AddAttr<float>("fuse_alpha2", kFuseAlphaDoc).SetDefault(0.0f);
    AddAttr<float>("fuse_beta2", kFuseBetaDoc).SetDefault(0.0f);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(fused_conv2d_transpose_pair,
                  paddle_lite::operators::FusedConv2DTransposePairOp,
                  paddle_lite::operators::FusedConv2DTransposePairOpMaker);
