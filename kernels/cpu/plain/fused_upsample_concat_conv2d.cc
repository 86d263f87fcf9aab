// fused_upsample_concat_conv2d on CPU, NCHW: the join gathered through
// each part's nearest index into a buffer of the call's own, then
// conv2d's kernel on it (conv_kernel.h) and the activation in place. What
// the MKLDNN kernel falls back to, and the reference it is tested
// against.
#include <cstdint>
#include <vector>

#include "kernels/cpu/plain/conv_kernel.h"
#include "kernels/cpu/plain/fused_activation.h"
#include "operators/upsample_shape.h"

namespace paddle_lite {
namespace kernels {
namespace {

template <typename T>
class FusedUpsampleConcatConvKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto inputs = ctx.MultiInput<framework::Tensor>("X");
    const auto* filter = ctx.Input<framework::Tensor>("Filter");
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    std::vector<framework::DDim> dims;
    for (const framework::Tensor* x : inputs) dims.push_back(x->dims());
    const operators::UpsampleConcatGeometry join =
        operators::ResolveUpsampleConcat(
            ctx.op().Type(), dims, ctx.Attr<std::vector<float>>("scale_h"),
            ctx.Attr<std::vector<float>>("scale_w"));
    const operators::Conv2DGeometry g =
        operators::ResolveConv2D(ctx.op(), join.OutputDims(), filter->dims());
    auto* output = ctx.Output<framework::Tensor>("Output");
    T* out = output->mutable_data<T>(ctx.GetPlace());
    if (output->numel() == 0) return;
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    const int64_t plane = join.out_h * join.out_w;
    std::vector<T> joined(
        static_cast<size_t>(join.batch * join.channels * plane));
    std::vector<operators::NearestIndex> index;
    for (const operators::UpsampledPart& p : join.parts) {
      index.push_back(operators::NearestIndexOf(p, join));
    }
    // One task per channel of an image, as fused_upsample_concat's.
    dev.ParallelFor(
        join.batch * join.channels, static_cast<double>(plane),
        [&](int64_t begin, int64_t end) {
          for (int64_t task = begin; task < end; ++task) {
            const int64_t n = task / join.channels;
            const int64_t c = task % join.channels;
            size_t k = 0;
            while (c >= join.parts[k].channel_offset + join.parts[k].channels) {
              ++k;
            }
            const operators::UpsampledPart& p = join.parts[k];
            const operators::NearestIndex& at = index[k];
            const T* in =
                inputs[p.input]->data<T>() +
                (n * p.channels + c - p.channel_offset) * p.in_h * p.in_w;
            T* to = joined.data() + task * plane;
            for (int64_t y = 0; y < join.out_h; ++y) {
              const T* row = in + at.rows[y] * p.in_w;
              for (int64_t x = 0; x < join.out_w; ++x) {
                *to++ = row[at.columns[x]];
              }
            }
          }
        });
    const T* w = filter->data<T>();
    const T* b = bias != nullptr ? bias->data<T>() : nullptr;
    if (g.groups == g.in_channels && g.in_channels > 0) {
      conv_detail::DepthwiseConv(dev, g, joined.data(), w, b, out);
    } else {
      conv_detail::GemmConv(dev, g, joined.data(), w, b, out);
    }
    ApplyFusedActivation<T>(dev, FusedActivationOf(ctx), out, output->numel());
  }
};

}  // namespace
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(fused_upsample_concat_conv2d,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::FusedUpsampleConcatConvKernel<float>,
                   paddle_lite::kernels::FusedUpsampleConcatConvKernel<double>);
