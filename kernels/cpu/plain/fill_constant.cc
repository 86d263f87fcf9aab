// fill_constant on CPU: Out[:] = the value from ValueTensor, str_value or
// value, in that order of priority.
#include <algorithm>
#include <string>
#include <type_traits>

#include "framework/kernel_registry.h"
#include "kernels/cpu/plain/element_convert.h"
#include "operators/fill_constant_value.h"

namespace paddle_lite {
namespace kernels {

namespace {

// The value as the op's inputs give it, before conversion to T. Shape
// inference has checked that a ValueTensor holds one element.
operators::FillValue ReadFillValue(const framework::ExecutionContext& ctx) {
  if (ctx.HasInput("ValueTensor")) {
    const auto* t = ctx.Input<framework::Tensor>("ValueTensor");
    operators::FillValue v;
    framework::VisitDataType(t->dtype(), [&](auto zero) {
      using V = decltype(zero);
      const V x = t->data<V>()[0];
      if constexpr (std::is_integral_v<V>) {
        v.is_int = true;
        v.i = static_cast<int64_t>(x);
        v.d = static_cast<double>(x);
      } else {
        v.d = ConvertElement<double>(x);
      }
    });
    return v;
  }
  const auto str_value = ctx.Attr<std::string>("str_value");
  if (!str_value.empty()) return operators::ParseFillStrValue(str_value);
  operators::FillValue v;
  v.d = ctx.Attr<float>("value");
  return v;
}

}  // namespace

template <typename T>
class FillConstantKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    auto* out = ctx.Output<framework::Tensor>("Out");
    T* o = out->mutable_data<T>(ctx.GetPlace());
    const operators::FillValue v = ReadFillValue(ctx);
    constexpr bool kIntegral = std::is_integral_v<T>;
    T value;
    if (kIntegral && v.special) {
      value = T(0);
    } else if (kIntegral && v.is_int) {
      value = ConvertElement<T>(v.i);
    } else {
      value = ConvertElement<T>(v.d);
    }
    std::fill(o, o + out->numel(), value);
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    fill_constant,
    PLAIN,
    CPUPlace,
    paddle_lite::kernels::FillConstantKernel<float>,
    paddle_lite::kernels::FillConstantKernel<double>,
    paddle_lite::kernels::FillConstantKernel<int32_t>,
    paddle_lite::kernels::FillConstantKernel<int64_t>,
    paddle_lite::kernels::FillConstantKernel<bool>,
    paddle_lite::kernels::FillConstantKernel<uint8_t>,
    paddle_lite::kernels::FillConstantKernel<int8_t>,
    paddle_lite::kernels::FillConstantKernel<int16_t>,
    paddle_lite::kernels::FillConstantKernel<paddle_lite::platform::float16>,
    paddle_lite::kernels::FillConstantKernel<paddle_lite::platform::bfloat16>);
