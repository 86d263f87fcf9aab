// fused_conv2d on CPU: the conv2d kernel, then the residual added and the
// activation applied in place.
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
    if (const auto* residual = ctx.Input<framework::Tensor>("ResidualData")) {
      T* out = output->data<T>();
      const T* r = residual->data<T>();
      const int64_t n = output->numel();  // not per element: it checks dims
      for (int64_t i = 0; i < n; ++i) out[i] += r[i];
    }
    ApplyFusedActivation<T>(ctx.device_context<platform::CPUDeviceContext>(),
                            state->activation, output->data<T>(),
                            output->numel());
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(fused_conv2d,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::FusedConvKernel<float>,
                   paddle_lite::kernels::FusedConvKernel<double>);
