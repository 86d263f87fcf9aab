// Reads the literal values of assign_value and set_value (the list
// attribute operators/value_list_attr.h chooses) as element type T.
// Private to kernels/cpu/plain.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "framework/operator.h"
#include "platform/element_convert.h"

namespace paddle_lite {
namespace kernels {

/// Writes the `count` values of list attribute `name` to out[0, count),
/// converted to T as a C++ cast would. Integer outputs read the list as
/// int64 so large int64_values (and SCALARS of kind int64) stay exact.
template <typename T>
void ReadValueList(const framework::ExecutionContext& ctx,
                   const std::string& name,
                   int64_t count,
                   T* out) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    const auto values = ctx.Attr<std::vector<int64_t>>(name);
    for (int64_t i = 0; i < count; ++i) out[i] = static_cast<T>(values[i]);
  } else {
    const auto values = ctx.Attr<std::vector<double>>(name);
    for (int64_t i = 0; i < count; ++i) {
      out[i] = platform::ConvertElement<T>(values[i]);
    }
  }
}

}  // namespace kernels
}  // namespace paddle_lite
