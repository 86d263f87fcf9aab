// elementwise_mul on the CUDA place: broadcasting as the CPU kernel does.
#include "kernels/cuda/plain/elementwise_util.cuh"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
using ElementwiseMulCUDAKernel = ElementwiseCUDAKernel<T, MulFunctor<T>>;

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    elementwise_mul,
    PLAIN,
    CUDAPlace,
    paddle_lite::kernels::cuda::ElementwiseMulCUDAKernel<float>,
    paddle_lite::kernels::cuda::ElementwiseMulCUDAKernel<int32_t>,
    paddle_lite::kernels::cuda::ElementwiseMulCUDAKernel<int64_t>);
