// Element conversion with Paddle's cast semantics (ops.md 7.2), shared by
// the cast, fill_constant and scale kernels (CPU and CUDA) and by numeric
// attributes read as another type (framework/attribute.cc).
#pragma once

#include <limits>
#include <type_traits>

#include "platform/float16.h"

namespace paddle_lite {
namespace platform {

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, platform::float16> ||
                                std::is_same_v<T, platform::bfloat16>;

/// C++ static_cast semantics: float -> integer truncates toward zero, any
/// -> bool is `v != 0`, bool -> number is 0/1. The 16-bit float types
/// convert through float (rounding to nearest). A NaN or a float outside
/// the integer type's range (undefined in C++) gives the type's lowest
/// value, as x86's conversion instructions do.
template <typename To, typename From>
inline To ConvertElement(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (kIsHalf<From>) {
    return ConvertElement<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (kIsHalf<To>) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_floating_point_v<From> &&
                       std::is_integral_v<To>) {
    // The bounds as From: lowest() is exact, max() + 1 is a power of two.
    constexpr From kLow = static_cast<From>(std::numeric_limits<To>::lowest());
    constexpr From kHigh =
        static_cast<From>(std::numeric_limits<To>::max() / 2 + 1) * From(2);
    if (!(v > kLow - From(1) && v < kHigh)) {
      return std::numeric_limits<To>::lowest();
    }
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace platform
}  // namespace paddle_lite
