// bilinear_interp_v2 on the CUDA place (see interp_util.cuh); rank-3 and
// rank-5 inputs interpolate linearly along each of their spatial axes.
#include "kernels/cuda/plain/interp_util.cuh"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
using BilinearInterpV2CUDAKernel = InterpCUDAKernel<T, InterpMethod::kBilinear>;

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    bilinear_interp_v2,
    PLAIN,
    CUDAPlace,
    paddle_lite::kernels::cuda::BilinearInterpV2CUDAKernel<float>);
