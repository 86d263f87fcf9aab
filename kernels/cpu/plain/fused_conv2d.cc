// fused_conv2d on CPU: the conv2d kernel, then the activation in place.
#include "kernels/cpu/plain/conv_kernel.h"
#include "kernels/cpu/plain/fused_activation.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class FusedConvKernel : public ConvKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    ConvKernel<T>::Compute(ctx);
    auto* output = ctx.Output<framework::Tensor>("Output");
    if (output->numel() == 0) return;
    ApplyFusedActivation<T>(ctx.device_context<platform::CPUDeviceContext>(),
                            FusedActivationOf(ctx), output->data<T>(),
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
