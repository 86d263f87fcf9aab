#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/cpu/plain/unary_kernel.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
struct ExpFunctor {
  explicit ExpFunctor(const framework::ExecutionContext&) {}
  T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {
      // Integer kernels compute in floating point and truncate (as Paddle's
      // Eigen-based kernel does); saturating keeps overflow defined.
      const double v = std::exp(static_cast<double>(x));
      if (v >= static_cast<double>(std::numeric_limits<T>::max())) {
        return std::numeric_limits<T>::max();
      }
      return static_cast<T>(v);
    } else {
      return std::exp(x);
    }
  }
};

template <typename T>
using ExpKernel = UnaryKernel<T, ExpFunctor<T>, 20>;

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(exp,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::ExpKernel<float>,
                   paddle_lite::kernels::ExpKernel<double>,
                   paddle_lite::kernels::ExpKernel<int32_t>,
                   paddle_lite::kernels::ExpKernel<int64_t>);
