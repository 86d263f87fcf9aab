#include "kernels/cpu/plain/lookup_table_kernel.h"

// The table types Paddle registers that a copy can serve: float, double,
// int8 (quantized tables) and the 16-bit floats.
REGISTER_OP_KERNEL(
    lookup_table_v2,
    PLAIN,
    CPUPlace,
    paddle_lite::kernels::LookupTableKernel<float>,
    paddle_lite::kernels::LookupTableKernel<double>,
    paddle_lite::kernels::LookupTableKernel<int8_t>,
    paddle_lite::kernels::LookupTableKernel<paddle_lite::platform::float16>,
    paddle_lite::kernels::LookupTableKernel<paddle_lite::platform::bfloat16>);
