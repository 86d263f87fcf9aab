// elementwise_div on the CUDA place: broadcasting as the CPU kernel does.
// Only floating-point types: the CPU kernel's integer version rejects a
// zero divisor up front, which would need Y on the host.
#include "kernels/cuda/plain/elementwise_util.cuh"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
using ElementwiseDivCUDAKernel = ElementwiseCUDAKernel<T, DivFunctor<T>>;

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(elementwise_div,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::ElementwiseDivCUDAKernel<float>);
