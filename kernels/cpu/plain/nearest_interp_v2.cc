#include "kernels/cpu/plain/interp_kernel.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
using NearestInterpV2Kernel = InterpKernel<T, InterpMethod::kNearest>;

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(nearest_interp_v2,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::NearestInterpV2Kernel<float>,
                   paddle_lite::kernels::NearestInterpV2Kernel<double>,
                   paddle_lite::kernels::NearestInterpV2Kernel<int32_t>,
                   paddle_lite::kernels::NearestInterpV2Kernel<int64_t>,
                   paddle_lite::kernels::NearestInterpV2Kernel<uint8_t>);
