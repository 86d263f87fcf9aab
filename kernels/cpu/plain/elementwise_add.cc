#include "kernels/cpu/plain/elementwise_kernel.h"
#include "kernels/cpu/plain/wrapping_arith.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
struct AddFunctor {
  T operator()(T x, T y) const { return WrappingAdd(x, y); }
};

template <typename T>
using ElementwiseAddKernel = ElementwiseKernel<T, AddFunctor<T>>;

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(elementwise_add,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::ElementwiseAddKernel<float>,
                   paddle_lite::kernels::ElementwiseAddKernel<double>,
                   paddle_lite::kernels::ElementwiseAddKernel<int32_t>,
                   paddle_lite::kernels::ElementwiseAddKernel<int64_t>);
