// elementwise_add on the CUDA place: broadcasting as the CPU kernel does.
#include "kernels/cuda/plain/elementwise_util.cuh"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
using ElementwiseAddCUDAKernel = ElementwiseCUDAKernel<T, AddFunctor<T>>;

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    elementwise_add,
    PLAIN,
    CUDAPlace,
    paddle_lite::kernels::cuda::ElementwiseAddCUDAKernel<float>,
    paddle_lite::kernels::cuda::ElementwiseAddCUDAKernel<int32_t>,
    paddle_lite::kernels::cuda::ElementwiseAddCUDAKernel<int64_t>);
