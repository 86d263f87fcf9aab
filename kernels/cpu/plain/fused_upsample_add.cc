// fused_upsample_add on CPU, NCHW: each output row is X's row (times its
// channel's XScale) plus Y's source row read through the nearest index.
#include <cstdint>
#include <vector>

#include "framework/kernel_registry.h"
#include "operators/upsample_shape.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class FusedUpsampleAddKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto* y = ctx.Input<framework::Tensor>("Y");
    const auto* x_scale = ctx.HasInput("XScale")
                              ? ctx.Input<framework::Tensor>("XScale")
                              : nullptr;
    const operators::UpsampleAddGeometry g = operators::ResolveUpsampleAdd(
        ctx.op().Type(), x->dims(), y->dims(),
        x_scale ? x_scale->dims() : framework::DDim{},
        ctx.Attr<float>("scale_h"), ctx.Attr<float>("scale_w"));
    auto* out = ctx.Output<framework::Tensor>("Out");
    T* o = out->mutable_data<T>(ctx.GetPlace());
    if (out->numel() == 0) return;
    const operators::NearestIndex at = operators::NearestIndexOf(g);
    const T* xs = x->data<T>();
    const T* ys = y->data<T>();
    const T* scales = x_scale ? x_scale->data<T>() : nullptr;
    const int64_t plane = g.out_h * g.out_w;
    // One task per channel of an image.
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        g.batch * g.channels, 2.0 * static_cast<double>(plane),
        [&](int64_t begin, int64_t end) {
          for (int64_t task = begin; task < end; ++task) {
            const T* from = xs + task * plane;
            const T* source = ys + task * g.in_h * g.in_w;
            T* to = o + task * plane;
            const T* scale = nullptr;
            if (scales != nullptr) {
              const int64_t n = g.x_scale_images == 1 ? 0 : task / g.channels;
              scale = scales + n * g.channels + task % g.channels;
            }
            for (int64_t r = 0; r < g.out_h; ++r) {
              const T* y_row = source + at.rows[r] * g.in_w;
              for (int64_t c = 0; c < g.out_w; ++c) {
                const T scaled = scale ? *from * *scale : *from;
                *to++ = scaled + y_row[at.columns[c]];
                ++from;
              }
            }
          }
        });
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(fused_upsample_add,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::FusedUpsampleAddKernel<float>,
                   paddle_lite::kernels::FusedUpsampleAddKernel<double>);
