// reshape2 on CPU: Out shares X's buffer under the inferred dims.
#include "kernels/cpu/plain/share_data_kernel.h"

REGISTER_OP_KERNEL(
    reshape2,
    PLAIN,
    CPUPlace,
    paddle_lite::kernels::ShareDataKernel<float>,
    paddle_lite::kernels::ShareDataKernel<double>,
    paddle_lite::kernels::ShareDataKernel<int32_t>,
    paddle_lite::kernels::ShareDataKernel<int64_t>,
    paddle_lite::kernels::ShareDataKernel<bool>,
    paddle_lite::kernels::ShareDataKernel<uint8_t>,
    paddle_lite::kernels::ShareDataKernel<int8_t>,
    paddle_lite::kernels::ShareDataKernel<int16_t>,
    paddle_lite::kernels::ShareDataKernel<paddle_lite::platform::float16>,
    paddle_lite::kernels::ShareDataKernel<paddle_lite::platform::bfloat16>);
