// fused_upsample_concat: Out = concat along channels of the X tensors, each
// first upsampled by nearest_interp_v2 with its own scale (1 for one taken
// as it is). The fuse_upsample_concat pass makes it from a feature
// pyramid's head (DBNet's: three maps upsampled by 8, 4 and 2 and joined
// with a fourth): the upsampled maps are never stored, each output pixel
// is copied from its source pixel. Inputs are NCHW; the results are the
// original ops' bit for bit (copies only).
#include "framework/op_registry.h"
#include "operators/upsample_shape.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace operators {

UpsampleConcatGeometry ResolveUpsampleConcat(
    const std::string& op,
    const std::vector<framework::DDim>& dims,
    const std::vector<float>& scale_h,
    const std::vector<float>& scale_w) {
  PADDLE_ENFORCE(!dims.empty(),
                 errors::InvalidArgument(op, ": input X needs a tensor"));
  PADDLE_ENFORCE(
      scale_h.size() == dims.size() && scale_w.size() == dims.size(),
      errors::InvalidArgument(
          op, ": scale_h and scale_w need one value per input (", dims.size(),
          "), got ", scale_h.size(), " and ", scale_w.size()));
  bool all_empty = true;
  for (const framework::DDim& d : dims) {
    all_empty = all_empty && framework::Product(d) == 0;
  }
  UpsampleConcatGeometry g;
  for (size_t i = 0; i < dims.size(); ++i) {
    const framework::DDim& d = dims[i];
    PADDLE_ENFORCE(d.size() == 4,
                   errors::InvalidArgument(
                       op, ": X[", i, "] must be 4-D [N, C, H, W], got ", d));
    PADDLE_ENFORCE(scale_h[i] > 0.f && scale_w[i] > 0.f,
                   errors::InvalidArgument(op, ": the scales of X[", i,
                                           "] must be positive, got ",
                                           scale_h[i], " and ", scale_w[i]));
    if (framework::Product(d) == 0 && !all_empty) continue;
    UpsampledPart part;
    part.input = i;
    part.channels = d[1];
    part.in_h = d[2];
    part.in_w = d[3];
    part.scale_h = scale_h[i];
    part.scale_w = scale_w[i];
    const std::string name = "X[" + std::to_string(i) + "]";
    const int64_t h = ScaledInterpSize(op, name + "'s", d[2], scale_h[i]);
    const int64_t w = ScaledInterpSize(op, name + "'s", d[3], scale_w[i]);
    const bool upsampled = scale_h[i] != 1.f || scale_w[i] != 1.f;
    PADDLE_ENFORCE(
        !upsampled || (d[2] > 0 && d[3] > 0 && h > 0 && w > 0),
        errors::InvalidArgument(op, ": X[", i, "] ", d, " upsampled by ",
                                scale_h[i], " x ", scale_w[i],
                                " has no pixels (", h, " x ", w, ")"));
    if (g.parts.empty()) {
      g.batch = d[0];
      g.out_h = h;
      g.out_w = w;
    }
    PADDLE_ENFORCE(d[0] == g.batch && h == g.out_h && w == g.out_w,
                   errors::InvalidArgument(
                       op, ": X[", i, "] ", d, " upsampled by ", scale_h[i],
                       " x ", scale_w[i], " is ", d[0], " images of ", h, " x ",
                       w, "; X[", g.parts[0].input, "] gives ", g.batch, " of ",
                       g.out_h, " x ", g.out_w));
    part.channel_offset = g.channels;
    g.channels += d[1];
    g.parts.push_back(part);
  }
  return g;
}

class FusedUpsampleConcatOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "4-D NCHW tensors, joined along channels").AsDuplicable();
    AddOutput("Out", "[N, sum of C, H, W]");
    AddAttr<std::vector<float>>(
        "scale_h",
        "per input, nearest_interp_v2's scale of its height (1: as it is)")
        .SetDefault({});
    AddAttr<std::vector<float>>("scale_w", "per input, that of its width")
        .SetDefault({});
  }
};

class FusedUpsampleConcatOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const UpsampleConcatGeometry g =
        ResolveUpsampleConcat(Type(), ctx->GetInputsDim("X"),
                              ctx->Attr<std::vector<float>>("scale_h"),
                              ctx->Attr<std::vector<float>>("scale_w"));
    ctx->SetOutputDim("Out", g.OutputDims());
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(fused_upsample_concat,
                  paddle_lite::operators::FusedUpsampleConcatOp,
                  paddle_lite::operators::FusedUpsampleConcatOpMaker);
