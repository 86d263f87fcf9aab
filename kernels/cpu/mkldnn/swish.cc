#include "kernels/cpu/mkldnn/eltwise_kernel.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

struct SwishSpec {
  EltwiseSpec operator()(const framework::ExecutionContext& ctx) const {
    // x / (1 + exp(-beta * x)): oneDNN's swish with alpha = beta.
    EltwiseSpec spec;
    spec.algorithm = dnnl::algorithm::eltwise_swish;
    spec.alpha = ctx.Attr<float>("beta");
    return spec;
  }
};

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(swish,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnEltwiseKernel<
                       float,
                       paddle_lite::kernels::mkldnn::SwishSpec>);
