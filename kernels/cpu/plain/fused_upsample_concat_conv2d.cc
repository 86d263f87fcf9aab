// fused_upsample_concat_conv2d on CPU, NCHW: the join gathered through
// each part's nearest index into a buffer of the call's own, then
// conv2d's kernel on it (conv_kernel.h) and the activation in place. What
// the MKLDNN kernel falls back to, and the reference it is tested
// against.
#include <cstdint>
#include <vector>

#include "kernels/cpu/plain/conv_kernel.h"
#include "kernels/cpu/plain/fused_activation.h"
#include "kernels/cpu/plain/upsample_concat_util.h"

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
    std::vector<T> joined(static_cast<size_t>(join.batch * join.channels *
                                              join.out_h * join.out_w));
    JoinUpsampled(dev, join, inputs, joined.data());
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
