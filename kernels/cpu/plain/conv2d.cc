#include "kernels/cpu/plain/conv_kernel.h"

REGISTER_OP_KERNEL(conv2d,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::ConvKernel<float>,
                   paddle_lite::kernels::ConvKernel<double>);
