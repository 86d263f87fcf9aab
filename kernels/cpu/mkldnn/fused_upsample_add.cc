// fused_upsample_add for X and Y in channel-last layouts (what our
// convolution loops, oneDNN's elementwise ops and these kernels write in a
// feature pyramid's top-down path): each output pixel's channels are X's
// (times XScale) plus those of Y's source pixel, and the output is
// channel-last too. Any other layout goes to the PLAIN kernel. Nothing is
// made per size.
#include <cstdint>
#include <vector>

#include "framework/kernel_registry.h"
#include "kernels/cpu/mkldnn/mkldnn_helper.h"
#include "operators/upsample_shape.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

template <typename T>
class MkldnnUpsampleAddKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto* y = ctx.Input<framework::Tensor>("Y");
    const bool scaled = ctx.HasInput("XScale");
    const operators::UpsampleAddGeometry g = operators::ResolveUpsampleAdd(
        ctx.op().Type(), x->dims(), y->dims(),
        scaled ? ctx.Input<framework::Tensor>("XScale")->dims()
               : framework::DDim{},
        ctx.Attr<float>("scale_h"), ctx.Attr<float>("scale_w"));
    if (x->numel() == 0 || MkldnnLayoutOf(*x) == nullptr ||
        !StoredChannelLast(*x) || !StoredChannelLast(*y)) {
      RunPlainKernel<T>(ctx);
      return;
    }
    MkldnnContext& mk = PrepareMkldnn(ctx);
    if (scaled) MakeInputPlain(ctx, "XScale");
    auto* out = ctx.Output<framework::Tensor>("Out");
    out->set_opaque_layout(
        mk.ChannelLastLayout(Dims(x->dims().begin(), x->dims().end())));
    T* dst = out->mutable_data<T>(ctx.GetPlace());
    if (framework::MakingOnly()) return;
    const operators::NearestIndex at = operators::NearestIndexOf(g);
    const T* xs = x->data<T>();
    const T* ys = y->data<T>();
    const T* scales =
        scaled ? ctx.Input<framework::Tensor>("XScale")->data<T>() : nullptr;
    const int64_t channels = g.channels;
    // One task per output row of an image.
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        g.batch * g.out_h, 2.0 * static_cast<double>(g.out_w * channels),
        [&](int64_t begin, int64_t end) {
          for (int64_t task = begin; task < end; ++task) {
            const int64_t n = task / g.out_h;
            const int64_t r = task % g.out_h;
            const T* from = xs + task * g.out_w * channels;
            T* to = dst + task * g.out_w * channels;
            const T* source =
                ys + (n * g.in_h + at.rows[r]) * g.in_w * channels;
            const T* scale =
                scales == nullptr
                    ? nullptr
                    : scales + (g.x_scale_images == 1 ? 0 : n) * channels;
            for (int64_t col = 0; col < g.out_w; ++col) {
              const T* add = source + at.columns[col] * channels;
              if (scale != nullptr) {
                for (int64_t c = 0; c < channels; ++c) {
                  const T product = from[c] * scale[c];
                  to[c] = product + add[c];
                }
              } else {
                for (int64_t c = 0; c < channels; ++c) to[c] = from[c] + add[c];
              }
              from += channels;
              to += channels;
            }
          }
        });
  }
};

}  // namespace
}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    fused_upsample_add,
    MKLDNN,
    CPUPlace,
    paddle_lite::kernels::mkldnn::MkldnnUpsampleAddKernel<float>);
