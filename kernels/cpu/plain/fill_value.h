// The value fill_constant writes, as the CPU and CUDA kernels both work it
// out: ValueTensor, else str_value, else value, converted to the output
// type with Paddle's cast semantics.
#pragma once

#include <string>
#include <type_traits>

#include "framework/kernel_registry.h"
#include "operators/fill_constant_value.h"
#include "platform/element_convert.h"

namespace paddle_lite {
namespace kernels {

/// `value_tensor`: the ValueTensor input on the host (shape inference has
/// checked it holds one element), or nullptr when the op has none.
inline operators::FillValue ReadFillValue(
    const framework::ExecutionContext& ctx,
    const framework::Tensor* value_tensor) {
  operators::FillValue v;
  if (value_tensor != nullptr) {
    framework::VisitDataType(value_tensor->dtype(), [&](auto zero) {
      using V = decltype(zero);
      const V x = value_tensor->data<V>()[0];
      if constexpr (std::is_integral_v<V>) {
        v.is_int = true;
        v.i = static_cast<int64_t>(x);
        v.d = static_cast<double>(x);
      } else {
        v.d = platform::ConvertElement<double>(x);
      }
    });
    return v;
  }
  const auto str_value = ctx.Attr<std::string>("str_value");
  if (!str_value.empty()) return operators::ParseFillStrValue(str_value);
  v.d = ctx.Attr<float>("value");
  return v;
}

/// The value as an element of T: integers stay exact, inf and nan give 0
/// in integer outputs.
template <typename T>
T FillElement(const operators::FillValue& v) {
  constexpr bool kIntegral = std::is_integral_v<T>;
  if (kIntegral && v.special) return T(0);
  if (kIntegral && v.is_int) return platform::ConvertElement<T>(v.i);
  return platform::ConvertElement<T>(v.d);
}

}  // namespace kernels
}  // namespace paddle_lite
