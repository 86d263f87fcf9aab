// fused_upsample_concat on CPU, NCHW: each row of an output channel is
// copied pixel by pixel from its source row of the part's input.
#include <cstdint>
#include <vector>

#include "framework/kernel_registry.h"
#include "operators/upsample_shape.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class FusedUpsampleConcatKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto inputs = ctx.MultiInput<framework::Tensor>("X");
    std::vector<framework::DDim> dims;
    for (const framework::Tensor* x : inputs) dims.push_back(x->dims());
    const operators::UpsampleConcatGeometry g =
        operators::ResolveUpsampleConcat(
            ctx.op().Type(), dims, ctx.Attr<std::vector<float>>("scale_h"),
            ctx.Attr<std::vector<float>>("scale_w"));
    auto* out = ctx.Output<framework::Tensor>("Out");
    T* o = out->mutable_data<T>(ctx.GetPlace());
    if (out->numel() == 0) return;
    std::vector<operators::NearestIndex> index;
    for (const operators::UpsampledPart& p : g.parts) {
      index.push_back(operators::NearestIndexOf(p, g));
    }
    const int64_t plane = g.out_h * g.out_w;
    // One task per output channel of an image.
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        g.batch * g.channels, static_cast<double>(plane),
        [&](int64_t begin, int64_t end) {
          for (int64_t task = begin; task < end; ++task) {
            const int64_t n = task / g.channels;
            const int64_t c = task % g.channels;
            size_t k = 0;
            while (c >= g.parts[k].channel_offset + g.parts[k].channels) ++k;
            const operators::UpsampledPart& p = g.parts[k];
            const operators::NearestIndex& at = index[k];
            const T* in =
                inputs[p.input]->data<T>() +
                (n * p.channels + c - p.channel_offset) * p.in_h * p.in_w;
            T* to = o + task * plane;
            for (int64_t y = 0; y < g.out_h; ++y) {
              const T* row = in + at.rows[y] * p.in_w;
              for (int64_t x = 0; x < g.out_w; ++x) *to++ = row[at.columns[x]];
            }
          }
        });
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(fused_upsample_concat,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::FusedUpsampleConcatKernel<float>,
                   paddle_lite::kernels::FusedUpsampleConcatKernel<double>);
