// Same grouped-convolution kernel as conv2d (spec §2.3); it takes the
// direct depthwise path when groups == C.
#include "kernels/cpu/plain/conv_kernel.h"

REGISTER_OP_KERNEL(depthwise_conv2d,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::ConvKernel<float>,
                   paddle_lite::kernels::ConvKernel<double>);
