#include "kernels/cpu/mkldnn/conv_kernel.h"

REGISTER_OP_KERNEL(conv2d,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnConv2dKernel<float>);
