// fused_conv2d_upsample_add: fused_conv2d whose residual is a coarser map
// read through nearest_interp_v2's index instead of stored upsampled:
// Output = act(conv(Input) + Bias + ResidualData upsampled by scale_h and
// scale_w). The fuse_conv_upsample_add pass makes it from a fused_conv2d
// whose ResidualData is such an upsampling (the top-down steps of
// PP-OCRv2's detector: a 1x1 convolution of the finer level plus the
// coarser level upsampled by 2), so the upsampled map, as large as the
// output, is neither written nor read back. NCHW only, like the
// upsampling it replaces.
#include "operators/conv_op.h"
#include "operators/interp_op.h"

namespace paddle_lite {
namespace operators {

class FusedConvUpsampleAddOp : public ConvOp {
 public:
  using ConvOp::ConvOp;

 protected:
  void CheckResidual(framework::InferShapeContext* ctx,
                     const Conv2DGeometry& g) const override {
    PADDLE_ENFORCE(!g.channel_last,
                   errors::Unimplemented(Type(),
                                         ": data_format NHWC is not supported "
                                         "(the upsampling it fuses is NCHW)"));
    const framework::DDim out = g.OutputDims();
    const framework::DDim residual = ctx->GetInputDim("ResidualData");
    const float scale_h = Attr<float>("scale_h");
    const float scale_w = Attr<float>("scale_w");
    PADDLE_ENFORCE(
        residual.size() == 4,
        errors::InvalidArgument(
            Type(), ": ResidualData must be 4-D [N, M, H, W], got ", residual));
    PADDLE_ENFORCE(scale_h > 0.f && scale_w > 0.f,
                   errors::InvalidArgument(Type(),
                                           ": scale_h and scale_w must be "
                                           "positive, got ",
                                           scale_h, " and ", scale_w));
    const int64_t up_h =
        ScaledInterpSize(Type(), "ResidualData's", residual[2], scale_h);
    const int64_t up_w =
        ScaledInterpSize(Type(), "ResidualData's", residual[3], scale_w);
    PADDLE_ENFORCE(
        residual[0] == out[0] && residual[1] == out[1] && up_h == out[2] &&
            up_w == out[3],
        errors::InvalidArgument(
            Type(), ": ResidualData ", residual, " upsampled by ", scale_h,
            " x ", scale_w, " is [", residual[0], ", ", residual[1], ", ", up_h,
            ", ", up_w, "], which must be the output dims ", out));
  }
};

class FusedConvUpsampleAddOpMaker : public FusedConvOpMaker {
 public:
  void Make() override {
    FusedConvOpMaker::Make();
    AddAttr<float>("scale_h", "ResidualData's upsampling factor in height")
        .SetDefault(1.f);
    AddAttr<float>("scale_w", "ResidualData's upsampling factor in width")
        .SetDefault(1.f);
  }

 protected:
  const char* ResidualDataDoc() const override {
    return "[N, M, RH, RW]: upsampled by nearest_interp_v2's rule (scale_h, "
           "scale_w, align_corners false) to the output's size and added "
           "before the activation";
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(fused_conv2d_upsample_add,
                  paddle_lite::operators::FusedConvUpsampleAddOp,
                  paddle_lite::operators::FusedConvUpsampleAddOpMaker);
