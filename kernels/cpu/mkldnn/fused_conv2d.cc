#include "kernels/cpu/mkldnn/conv_kernel.h"

REGISTER_OP_KERNEL(fused_conv2d,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnConv2dKernel<
                       float,
                       /*kFusedActivation=*/true>);
