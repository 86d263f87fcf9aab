#include "kernels/cpu/plain/elementwise_kernel.h"
#include "kernels/cpu/plain/wrapping_arith.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
struct MulFunctor {
  T operator()(T x, T y) const { return WrappingMul(x, y); }
};

template <typename T>
using ElementwiseMulKernel = ElementwiseKernel<T, MulFunctor<T>>;

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(elementwise_mul,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::ElementwiseMulKernel<float>,
                   paddle_lite::kernels::ElementwiseMulKernel<double>,
                   paddle_lite::kernels::ElementwiseMulKernel<int32_t>,
                   paddle_lite::kernels::ElementwiseMulKernel<int64_t>);
