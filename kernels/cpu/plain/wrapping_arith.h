// Element arithmetic for kernels that take integer tensors: signed integer
// overflow is undefined in C++, and a hostile or unlucky program reaches
// it (a scale of INT64_MAX). These wrap around in two's complement, as
// Paddle's kernels do on x86 in practice; floating-point types are
// unchanged.
#pragma once

#include <type_traits>

namespace paddle_lite {
namespace kernels {

namespace wrapping_internal {
// The unsigned type the arithmetic is done in: at least unsigned int, so
// that narrow types are not promoted back to (signed) int.
template <typename T>
using Unsigned = std::conditional_t<(sizeof(T) < sizeof(unsigned)),
                                    unsigned,
                                    std::make_unsigned_t<T>>;
// Unsigned types wrap by themselves, but one narrower than int is promoted
// to (signed) int first: 65535 * 65535 would overflow it.
template <typename T>
inline constexpr bool kWraps =
    std::is_integral_v<T> && !std::is_same_v<T, bool>;
}  // namespace wrapping_internal

template <typename T>
inline T WrappingAdd(T a, T b) {
  if constexpr (wrapping_internal::kWraps<T>) {
    using U = wrapping_internal::Unsigned<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

template <typename T>
inline T WrappingSub(T a, T b) {
  if constexpr (wrapping_internal::kWraps<T>) {
    using U = wrapping_internal::Unsigned<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}

template <typename T>
inline T WrappingMul(T a, T b) {
  if constexpr (wrapping_internal::kWraps<T>) {
    using U = wrapping_internal::Unsigned<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

}  // namespace kernels
}  // namespace paddle_lite
