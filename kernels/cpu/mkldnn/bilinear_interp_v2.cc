#include "kernels/cpu/mkldnn/interp_kernel.h"

REGISTER_OP_KERNEL(bilinear_interp_v2,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnInterpKernel<
                       float,
                       paddle_lite::kernels::mkldnn::InterpMethod::kBilinear>);
