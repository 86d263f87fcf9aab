// fused_upsample_concat on CPU, NCHW: JoinUpsampled
// (upsample_concat_util.h).
#include <vector>

#include "framework/kernel_registry.h"
#include "kernels/cpu/plain/upsample_concat_util.h"

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
    JoinUpsampled(ctx.device_context<platform::CPUDeviceContext>(), g, inputs,
                  o);
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(fused_upsample_concat,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::FusedUpsampleConcatKernel<float>,
                   paddle_lite::kernels::FusedUpsampleConcatKernel<double>);
