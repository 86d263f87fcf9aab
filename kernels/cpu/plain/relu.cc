#include "kernels/cpu/plain/unary_kernel.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
struct ReluFunctor {
  explicit ReluFunctor(const framework::ExecutionContext&) {}
  T operator()(T x) const { return x > T(0) ? x : T(0); }
};

template <typename T>
using ReluKernel = UnaryKernel<T, ReluFunctor<T>, 1>;

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(relu,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::ReluKernel<float>,
                   paddle_lite::kernels::ReluKernel<double>);
