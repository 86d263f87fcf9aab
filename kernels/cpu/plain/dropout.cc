#include <string>

#include "framework/kernel_registry.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class DropoutKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    // "upscale_in_train" already scaled by 1 / (1 - p) during training, so
    // inference passes X through; "downgrade_in_infer" scales here.
    const bool upscale_in_train =
        ctx.Attr<std::string>("dropout_implementation") == "upscale_in_train";
    // 1 - p is taken in float, as Paddle does, also for double tensors.
    const T factor =
        upscale_in_train
            ? T(1)
            : static_cast<T>(1.0f - ctx.Attr<float>("dropout_prob"));
    const T* in = x->data<T>();
    T* o = out->mutable_data<T>(ctx.GetPlace());
    if (o == in && factor == T(1)) return;  // in place, nothing to do
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        x->numel(), 1.0, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) o[i] = in[i] * factor;
        });
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(dropout,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::DropoutKernel<float>,
                   paddle_lite::kernels::DropoutKernel<double>);
