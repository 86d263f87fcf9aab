#include <cmath>

#include "kernels/cpu/plain/unary_kernel.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
struct TanhFunctor {
  explicit TanhFunctor(const framework::ExecutionContext&) {}
  T operator()(T x) const { return std::tanh(x); }
};

template <typename T>
using TanhKernel = UnaryKernel<T, TanhFunctor<T>, 20>;

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(tanh,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::TanhKernel<float>,
                   paddle_lite::kernels::TanhKernel<double>);
