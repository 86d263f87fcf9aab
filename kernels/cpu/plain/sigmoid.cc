#include <cmath>

#include "kernels/cpu/plain/unary_kernel.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
struct SigmoidFunctor {
  explicit SigmoidFunctor(const framework::ExecutionContext&) {}
  T operator()(T x) const { return T(1) / (T(1) + std::exp(-x)); }
};

template <typename T>
using SigmoidKernel = UnaryKernel<T, SigmoidFunctor<T>, 20>;

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(sigmoid,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::SigmoidKernel<float>,
                   paddle_lite::kernels::SigmoidKernel<double>);
