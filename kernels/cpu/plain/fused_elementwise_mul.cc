#include "kernels/cpu/plain/fused_elementwise_kernel.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
struct FusedMulFunctor {
  T operator()(T x, T y) const { return x * y; }
};

template <typename T>
using FusedElementwiseMulKernel = FusedElementwiseKernel<T, FusedMulFunctor<T>>;

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(fused_elementwise_mul,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::FusedElementwiseMulKernel<float>,
                   paddle_lite::kernels::FusedElementwiseMulKernel<double>);
