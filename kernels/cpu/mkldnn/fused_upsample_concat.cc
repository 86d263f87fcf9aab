// fused_upsample_concat for inputs in MKLDNN layouts, all channel-last
// (what our convolution loops and oneDNN's elementwise ops write in a
// detector's neck): each output pixel's channels are copied from each
// part's source pixel in turn, and the output is channel-last too. Any
// other layout goes to the PLAIN kernel. Nothing is made per size.
#include <cstdint>
#include <cstring>
#include <vector>

#include "framework/kernel_registry.h"
#include "kernels/cpu/mkldnn/mkldnn_helper.h"
#include "operators/upsample_shape.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

template <typename T>
class MkldnnUpsampleConcatKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto inputs = ctx.MultiInput<framework::Tensor>("X");
    std::vector<framework::DDim> dims;
    bool any_layout = false;
    for (const framework::Tensor* x : inputs) {
      dims.push_back(x->dims());
      any_layout = any_layout || MkldnnLayoutOf(*x) != nullptr;
    }
    const operators::UpsampleConcatGeometry g =
        operators::ResolveUpsampleConcat(
            ctx.op().Type(), dims, ctx.Attr<std::vector<float>>("scale_h"),
            ctx.Attr<std::vector<float>>("scale_w"));
    bool channel_last = any_layout && g.batch > 0 && g.out_h > 0 && g.out_w > 0;
    for (const operators::UpsampledPart& p : g.parts) {
      channel_last = channel_last && StoredChannelLast(*inputs[p.input]);
    }
    if (!channel_last) {
      RunPlainKernel<T>(ctx);
      return;
    }
    MkldnnContext& mk = PrepareMkldnn(ctx);
    auto* out = ctx.Output<framework::Tensor>("Out");
    const framework::DDim out_dims = g.OutputDims();
    out->set_opaque_layout(
        mk.ChannelLastLayout(Dims(out_dims.begin(), out_dims.end())));
    T* dst = out->mutable_data<T>(ctx.GetPlace());
    if (framework::MakingOnly()) return;
    std::vector<operators::NearestIndex> index;
    for (const operators::UpsampledPart& p : g.parts) {
      index.push_back(operators::NearestIndexOf(p, g));
    }
    const int64_t channels = g.channels;
    // One task per output row of an image.
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        g.batch * g.out_h, 2.0 * static_cast<double>(g.out_w * channels),
        [&](int64_t begin, int64_t end) {
          for (int64_t task = begin; task < end; ++task) {
            const int64_t n = task / g.out_h;
            const int64_t y = task % g.out_h;
            T* row = dst + task * g.out_w * channels;
            for (size_t k = 0; k < g.parts.size(); ++k) {
              const operators::UpsampledPart& p = g.parts[k];
              const operators::NearestIndex& at = index[k];
              const T* from = inputs[p.input]->data<T>() +
                              (n * p.in_h + at.rows[y]) * p.in_w * p.channels;
              T* to = row + p.channel_offset;
              const size_t bytes = sizeof(T) * p.channels;
              for (int64_t x = 0; x < g.out_w; ++x) {
                std::memcpy(to + x * channels,
                            from + at.columns[x] * p.channels, bytes);
              }
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
    fused_upsample_concat,
    MKLDNN,
    CPUPlace,
    paddle_lite::kernels::mkldnn::MkldnnUpsampleConcatKernel<float>);
