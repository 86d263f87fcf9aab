#include "framework/ddim.h"

#include <algorithm>
#include <sstream>

#include "platform/enforce.h"

namespace paddle_lite {
namespace framework {

int64_t Product(const DDim& dims, int begin, int end) {
  // The product of the non-zero dims must fit too, so that an empty
  // tensor's rows (h * w of [1, 6, 2^62, 2^62, 0]) cannot overflow in the
  // kernel that walks them: every partial product of dims that pass here
  // fits in 64 bits.
  int64_t nonzero = 1;
  bool empty = false;
  for (int i = begin; i < end; ++i) {
    PADDLE_ENFORCE_GE(
        dims[i], 0,
        errors::InvalidArgument("Dimension ", i, " of ", DimsToString(dims),
                                " is negative (unknown)."));
    if (dims[i] == 0) {
      empty = true;
      continue;
    }
    // Hostile declared dims must not wrap around into a small size.
    if (__builtin_mul_overflow(nonzero, dims[i], &nonzero)) {
      const bool has_zero = std::find(dims.begin() + begin, dims.begin() + end,
                                      0) != dims.begin() + end;
      PADDLE_THROW(errors::InvalidArgument(
          "The element count of ", DimsToString(dims), " overflows 64 bits",
          has_zero ? " (counting its non-zero dims)." : "."));
    }
  }
  return empty ? 0 : nonzero;
}

int64_t Product(const DDim& dims) {
  return Product(dims, 0, static_cast<int>(dims.size()));
}

std::string DimsToString(const DDim& dims) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) os << ", ";
    os << dims[i];
  }
  os << "]";
  return os.str();
}

}  // namespace framework
}  // namespace paddle_lite

namespace std {
std::ostream& operator<<(std::ostream& os, const vector<int64_t>& dims) {
  return os << paddle_lite::framework::DimsToString(dims);
}
std::ostream& operator<<(std::ostream& os, const vector<int32_t>& values) {
  return os << paddle_lite::framework::DimsToString(
             vector<int64_t>(values.begin(), values.end()));
}
}  // namespace std
