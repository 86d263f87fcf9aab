// nearest_interp_v2 on the CUDA place (see interp_util.cuh).
#include "kernels/cuda/plain/interp_util.cuh"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
using NearestInterpV2CUDAKernel = InterpCUDAKernel<T, InterpMethod::kNearest>;

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    nearest_interp_v2,
    PLAIN,
    CUDAPlace,
    paddle_lite::kernels::cuda::NearestInterpV2CUDAKernel<float>);
