#include "kernels/cpu/plain/interp_kernel.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
using BilinearInterpV2Kernel = InterpKernel<T, InterpMethod::kBilinear>;

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(bilinear_interp_v2,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::BilinearInterpV2Kernel<float>,
                   paddle_lite::kernels::BilinearInterpV2Kernel<double>);
