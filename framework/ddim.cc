#include "framework/ddim.h"

#include <sstream>

#include "platform/enforce.h"

namespace paddle_lite {
namespace framework {

int64_t Product(const DDim& dims, int begin, int end) {
  int64_t n = 1;
  for (int i = begin; i < end; ++i) {
    PADDLE_ENFORCE_GE(
        dims[i], 0,
        errors::InvalidArgument("Dimension ", i, " of ", DimsToString(dims),
                                " is negative (unknown)."));
    // Hostile declared dims must not wrap around into a small size.
    PADDLE_ENFORCE(
        !__builtin_mul_overflow(n, dims[i], &n),
        errors::InvalidArgument("The element count of ", DimsToString(dims),
                                " overflows 64 bits."));
  }
  return n;
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
