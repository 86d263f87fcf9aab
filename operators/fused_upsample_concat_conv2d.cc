// fused_upsample_concat_conv2d: fused_conv2d whose Input is the join of
// fused_upsample_concat, never stored: Output = act(conv(concat along
// channels of the X maps, each upsampled by nearest_interp_v2 with its
// scale_h and scale_w (1: as it is)) + Bias). The
// fuse_upsample_concat_conv pass makes it from DBNet's head (a feature
// pyramid's four levels joined, then a 3x3 convolution), where the joined
// map is the largest of the network (96 channels at a quarter of the
// image: 38 MB at 1280x1280) and is written once to be read once. NCHW
// only, like the ops it replaces.
#include "operators/conv_op.h"
#include "operators/upsample_shape.h"

namespace paddle_lite {
namespace operators {

class FusedUpsampleConcatConvOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const UpsampleConcatGeometry join = ResolveUpsampleConcat(
        Type(), ctx->GetInputsDim("X"), Attr<std::vector<float>>("scale_h"),
        Attr<std::vector<float>>("scale_w"));
    PADDLE_ENFORCE(!ConvAttrsOf(ctx->op()).channel_last,
                   errors::Unimplemented(Type(),
                                         ": data_format NHWC is not supported "
                                         "(the join it fuses is NCHW)"));
    const framework::DDim filter = ctx->GetInputDim("Filter");
    const Conv2DGeometry g =
        ResolveConv2D(ctx->op(), join.OutputDims(), filter);
    if (ctx->HasInput("Bias")) {
      const framework::DDim bias = ctx->GetInputDim("Bias");
      PADDLE_ENFORCE_EQ(
          framework::Product(bias), g.out_channels,
          errors::InvalidArgument(Type(), ": Bias dims ", bias,
                                  " must hold one value per output channel "
                                  "(Filter dims ",
                                  filter, ")"));
    }
    ctx->SetOutputDim("Output", g.OutputDims());
  }
};

class FusedUpsampleConcatConvOpMaker : public FusedConvOpMaker {
 public:
  void Make() override {
    AddInput("X",
             "4-D NCHW maps, each upsampled by its scales and joined along "
             "channels: the convolution's input")
        .AsDuplicable();
    AddInput("Filter", "weights [M, sum of C / groups, KH, KW]");
    AddInput("Bias", "optional per-output-channel bias [M]").AsDispensable();
    AddOutput("Output", "[N, M, OH, OW]");
    AddAttr<std::vector<float>>(
        "scale_h",
        "per input, nearest_interp_v2's scale of its height (1: as it is)")
        .SetDefault({});
    AddAttr<std::vector<float>>("scale_w", "per input, that of its width")
        .SetDefault({});
    AddConvAttrs();
    AddActivationAttrs();
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(fused_upsample_concat_conv2d,
                  paddle_lite::operators::FusedUpsampleConcatConvOp,
                  paddle_lite::operators::FusedUpsampleConcatConvOpMaker);
