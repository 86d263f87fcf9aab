#include "kernels/cpu/mkldnn/elementwise_kernel.h"

REGISTER_OP_KERNEL(fused_elementwise_mul,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnElementwiseKernel<
                       float,
                       dnnl::algorithm::binary_mul,
                       /*kFusedActivation=*/true>);
