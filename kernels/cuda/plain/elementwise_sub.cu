// elementwise_sub on the CUDA place: broadcasting as the CPU kernel does.
#include "kernels/cuda/plain/elementwise_util.cuh"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
using ElementwiseSubCUDAKernel = ElementwiseCUDAKernel<T, SubFunctor<T>>;

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    elementwise_sub,
    PLAIN,
    CUDAPlace,
    paddle_lite::kernels::cuda::ElementwiseSubCUDAKernel<float>,
    paddle_lite::kernels::cuda::ElementwiseSubCUDAKernel<int32_t>,
    paddle_lite::kernels::cuda::ElementwiseSubCUDAKernel<int64_t>);
