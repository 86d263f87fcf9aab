#include "kernels/cpu/plain/fused_elementwise_kernel.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
struct FusedAddFunctor {
  T operator()(T x, T y) const { return x + y; }
};

template <typename T>
using FusedElementwiseAddKernel = FusedElementwiseKernel<T, FusedAddFunctor<T>>;

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(fused_elementwise_add,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::FusedElementwiseAddKernel<float>,
                   paddle_lite::kernels::FusedElementwiseAddKernel<double>);
