#include "kernels/cpu/mkldnn/elementwise_kernel.h"

REGISTER_OP_KERNEL(fused_elementwise_add,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnElementwiseKernel<
                       float,
                       dnnl::algorithm::binary_add,
                       /*kFusedActivation=*/true>);
