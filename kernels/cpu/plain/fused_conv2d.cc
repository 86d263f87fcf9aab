// fused_conv2d on CPU: the conv2d kernel, then the residual added and the
// activation applied in place (fused_conv_kernel.h).
#include "kernels/cpu/plain/fused_conv_kernel.h"

REGISTER_OP_KERNEL(fused_conv2d,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::FusedConvKernel<float>,
                   paddle_lite::kernels::FusedConvKernel<double>);
