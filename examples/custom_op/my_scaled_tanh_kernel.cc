// The CPU kernel of my_scaled_tanh, registered like an in-tree kernel
// (kernels/cpu/plain/<op>.cc): one class template over the element type,
// one registration for float and double.
#include <cmath>

#include "framework/kernel_registry.h"
#include "platform/device_context.h"

namespace custom_op {

namespace fw = paddle_lite::framework;

template <typename T>
class MyScaledTanhKernel : public fw::OpKernel<T> {
 public:
  void Compute(const fw::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<fw::Tensor>("X");
    auto* out = ctx.Output<fw::Tensor>("Out");
    const T scale = static_cast<T>(ctx.Attr<float>("scale"));
    const T* in = x->data<T>();
    T* o = out->mutable_data<T>(ctx.GetPlace());
    // Split across the predictor's CPU threads, like the core's kernels.
    ctx.device_context<paddle_lite::platform::CPUDeviceContext>().ParallelFor(
        x->numel(), /*cost_per_unit=*/20, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) o[i] = std::tanh(scale * in[i]);
        });
  }
};

}  // namespace custom_op

REGISTER_OP_KERNEL(my_scaled_tanh,
                   PLAIN,
                   CPUPlace,
                   custom_op::MyScaledTanhKernel<float>,
                   custom_op::MyScaledTanhKernel<double>);
