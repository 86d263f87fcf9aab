// The value fill_constant writes when it comes from the str_value
// attribute (ops.md 9.1), parsed once the same way by the op's checks and
// by kernels.
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "platform/enforce.h"

namespace paddle_lite {
namespace operators {

/// A parsed fill value: an exact integer when the text is one (so large
/// int64 values survive), a double otherwise.
struct FillValue {
  bool is_int = false;
  int64_t i = 0;
  double d = 0;
  /// inf, -inf or nan: integer outputs get 0 (what Paddle's
  /// numeric_limits<int>::infinity() gives).
  bool special = false;
};

/// Parses str_value; throws InvalidArgument naming the text when it is not
/// a number.
inline FillValue ParseFillStrValue(const std::string& text) {
  FillValue v;
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  const long long i = std::strtoll(begin, &end, 10);  // NOLINT: strtoll type
  if (end != begin && *end == '\0' && errno == 0) {
    v.is_int = true;
    v.i = static_cast<int64_t>(i);
    v.d = static_cast<double>(i);
    return v;
  }
  end = nullptr;
  v.d = std::strtod(begin, &end);
  PADDLE_ENFORCE(end != begin && *end == '\0',
                 platform::errors::InvalidArgument("fill_constant: str_value '",
                                                   text, "' is not a number."));
  // strtod reads "inf", "-inf" and "nan" (and overflows to inf).
  v.special = !std::isfinite(v.d);
  return v;
}

}  // namespace operators
}  // namespace paddle_lite
