// Kernel of the fused_elementwise_* ops: the broadcasting element-wise
// loop, then the fused activation in place on Out. Private to
// kernels/cpu/plain.
#pragma once

#include "kernels/cpu/plain/elementwise_kernel.h"
#include "kernels/cpu/plain/fused_activation.h"

namespace paddle_lite {
namespace kernels {

/// Out = act(f(X, Y)); Functor as for ElementwiseKernel.
template <typename T, typename Functor>
class FusedElementwiseKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    ElementwiseCompute<T>(ctx, Functor());
    auto* out = ctx.Output<framework::Tensor>("Out");
    if (out->numel() == 0) return;
    ApplyFusedActivation<T>(ctx.device_context<platform::CPUDeviceContext>(),
                            FusedActivationOf(ctx), out->data<T>(),
                            out->numel());
  }
};

}  // namespace kernels
}  // namespace paddle_lite
