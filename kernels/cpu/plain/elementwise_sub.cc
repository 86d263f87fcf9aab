#include "kernels/cpu/plain/elementwise_kernel.h"
#include "kernels/cpu/plain/wrapping_arith.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
struct SubFunctor {
  T operator()(T x, T y) const { return WrappingSub(x, y); }
};

template <typename T>
using ElementwiseSubKernel = ElementwiseKernel<T, SubFunctor<T>>;

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(elementwise_sub,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::ElementwiseSubKernel<float>,
                   paddle_lite::kernels::ElementwiseSubKernel<double>,
                   paddle_lite::kernels::ElementwiseSubKernel<int32_t>,
                   paddle_lite::kernels::ElementwiseSubKernel<int64_t>);
