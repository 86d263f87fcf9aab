// fused_upsample_add: Out = X * XScale + Y upsampled by nearest_interp_v2
// with scales scale_h and scale_w (no align_corners), XScale optional and
// one value per image and channel ([1 or N, C, 1, 1]). The
// fuse_upsample_add pass makes it from a feature pyramid's top-down path
// (a level plus the coarser level upsampled by 2; in PP-OCRv3's neck the
// level is first scaled by its squeeze-and-excitation gate), so that the
// upsampled map and the scaled level are never stored. Each output is
// rounded as the original ops round it: the product, then the sum.
#include "framework/op_registry.h"
#include "operators/shape_op_utils.h"
#include "operators/upsample_shape.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace operators {

UpsampleAddGeometry ResolveUpsampleAdd(const std::string& op,
                                       const framework::DDim& x,
                                       const framework::DDim& y,
                                       const framework::DDim& x_scale,
                                       float scale_h,
                                       float scale_w) {
  PADDLE_ENFORCE(x.size() == 4 && y.size() == 4,
                 errors::InvalidArgument(op,
                                         ": X and Y must be 4-D [N, C, H, "
                                         "W], got X ",
                                         x, " and Y ", y));
  PADDLE_ENFORCE(scale_h > 0.f && scale_w > 0.f,
                 errors::InvalidArgument(op,
                                         ": scale_h and scale_w must be "
                                         "positive, got ",
                                         scale_h, " and ", scale_w));
  UpsampleAddGeometry g;
  g.batch = x[0];
  g.channels = x[1];
  g.out_h = x[2];
  g.out_w = x[3];
  g.in_h = y[2];
  g.in_w = y[3];
  g.scale_h = scale_h;
  g.scale_w = scale_w;
  const int64_t up_h = ScaledInterpSize(op, "Y's", y[2], scale_h);
  const int64_t up_w = ScaledInterpSize(op, "Y's", y[3], scale_w);
  PADDLE_ENFORCE(
      y[0] == x[0] && y[1] == x[1] && up_h == x[2] && up_w == x[3],
      errors::InvalidArgument(op, ": Y ", y, " upsampled by ", scale_h, " x ",
                              scale_w, " is [", y[0], ", ", y[1], ", ", up_h,
                              ", ", up_w, "], which must be X's dims ", x));
  if (!x_scale.empty()) {
    PADDLE_ENFORCE(
        x_scale.size() == 4 && (x_scale[0] == 1 || x_scale[0] == x[0]) &&
            x_scale[1] == x[1] && x_scale[2] == 1 && x_scale[3] == 1,
        errors::InvalidArgument(op, ": XScale must be [1 or ", x[0], ", ", x[1],
                                ", 1, 1] for X ", x, ", got ", x_scale));
    g.x_scale_images = x_scale[0];
  }
  return g;
}

class FusedUpsampleAddOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[N, C, H, W]");
    AddInput("Y", "[N, C, h, w]: upsampled to H x W, then added");
    AddInput("XScale", "[1 or N, C, 1, 1]: multiplies X first").AsDispensable();
    AddOutput("Out", "X * XScale + Y upsampled, [N, C, H, W]");
    AddAttr<float>("scale_h", "nearest_interp_v2's scale of Y's height")
        .SetDefault(1.f);
    AddAttr<float>("scale_w", "nearest_interp_v2's scale of Y's width")
        .SetDefault(1.f);
  }
};

class FusedUpsampleAddOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const framework::DDim x = ctx->GetInputDim("X");
    ResolveUpsampleAdd(
        Type(), x, ctx->GetInputDim("Y"),
        HasTensorInput(*ctx, "XScale") ? ctx->GetInputDim("XScale")
                                       : framework::DDim{},
        ctx->Attr<float>("scale_h"), ctx->Attr<float>("scale_w"));
    ctx->SetOutputDim("Out", x);
    ctx->ShareLoD("X", "Out");
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(fused_upsample_add,
                  paddle_lite::operators::FusedUpsampleAddOp,
                  paddle_lite::operators::FusedUpsampleAddOpMaker);
