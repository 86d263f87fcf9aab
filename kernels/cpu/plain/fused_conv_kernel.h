// The CPU kernel of fused_conv2d, and the base of the fused convolutions
// that add their residual otherwise (fused_conv2d_upsample_add): the
// conv2d kernel, then the residual added and the activation applied in
// place. Private to kernels/cpu/plain.
#pragma once

#include "kernels/cpu/plain/conv_kernel.h"
#include "kernels/cpu/plain/fused_activation.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class FusedConvKernel : public ConvKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    PlainConvState own;
    PlainConvState* state = this->Run(ctx, &own);
    if (!state->has_activation) {
      state->activation = FusedActivationOf(ctx);
      state->has_activation = true;
    }
    auto* output = ctx.Output<framework::Tensor>("Output");
    if (output->numel() == 0) return;
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    if (const auto* residual = ctx.Input<framework::Tensor>("ResidualData")) {
      AddResidual(ctx, dev, state->geometry, *residual, output->data<T>());
    }
    ApplyFusedActivation<T>(dev, state->activation, output->data<T>(),
                            output->numel());
  }

 protected:
  /// Adds `residual` to the output `out` (of the geometry's dims):
  /// fused_conv2d's is of the output's dims.
  virtual void AddResidual(const framework::ExecutionContext& /*ctx*/,
                           const platform::CPUDeviceContext& /*dev*/,
                           const operators::Conv2DGeometry& g,
                           const framework::Tensor& residual,
                           T* out) const {
    const T* r = residual.data<T>();
    const int64_t n = g.batch * g.out_channels * g.out_h * g.out_w;
    for (int64_t i = 0; i < n; ++i) out[i] += r[i];
  }
};

}  // namespace kernels
}  // namespace paddle_lite
