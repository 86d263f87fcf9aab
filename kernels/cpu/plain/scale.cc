#include <type_traits>

#include "framework/kernel_registry.h"
#include "kernels/cpu/plain/wrapping_arith.h"
#include "platform/device_context.h"
#include "platform/element_convert.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class ScaleKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    double scale_value = ctx.Attr<float>("scale");
    if (const auto* st = ctx.Input<framework::Tensor>("ScaleTensor")) {
      // Usually float32, but read whatever numeric type the program holds.
      framework::VisitDataType(st->dtype(), [&](auto v) {
        using S = decltype(v);
        const S s = st->data<S>()[0];
        if constexpr (std::is_arithmetic_v<S>) {
          scale_value = static_cast<double>(s);
        } else {  // float16, bfloat16: convert through float
          scale_value = static_cast<float>(s);
        }
      });
    }
    // Paddle converts scale and bias to the element type first, so integer
    // tensors scale by the truncated value (0.5 -> 0); one out of the
    // type's range converts as x86 does (ConvertElement), and the integer
    // arithmetic wraps around rather than overflow.
    const T scale = platform::ConvertElement<T>(scale_value);
    const T bias = platform::ConvertElement<T>(ctx.Attr<float>("bias"));
    const bool bias_after_scale = ctx.Attr<bool>("bias_after_scale");
    const T* in = x->data<T>();
    T* o = out->mutable_data<T>(ctx.GetPlace());
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        x->numel(), 1.0, [&](int64_t begin, int64_t end) {
          if (bias_after_scale) {
            for (int64_t i = begin; i < end; ++i) {
              o[i] = WrappingAdd(WrappingMul(scale, in[i]), bias);
            }
          } else {
            for (int64_t i = begin; i < end; ++i) {
              o[i] = WrappingMul(scale, WrappingAdd(in[i], bias));
            }
          }
        });
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(scale,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::ScaleKernel<float>,
                   paddle_lite::kernels::ScaleKernel<double>,
                   paddle_lite::kernels::ScaleKernel<int32_t>,
                   paddle_lite::kernels::ScaleKernel<int64_t>);
