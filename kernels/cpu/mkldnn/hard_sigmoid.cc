#include "kernels/cpu/mkldnn/eltwise_kernel.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

struct HardSigmoidSpec {
  EltwiseSpec operator()(const framework::ExecutionContext& ctx) const {
    // clip(slope * x + offset, 0, 1): a linear eltwise and a clip post-op.
    EltwiseSpec spec;
    spec.algorithm = dnnl::algorithm::eltwise_linear;
    spec.alpha = ctx.Attr<float>("slope");
    spec.beta = ctx.Attr<float>("offset");
    spec.clip = true;
    spec.clip_low = 0.f;
    spec.clip_high = 1.f;
    return spec;
  }
};

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(hard_sigmoid,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnEltwiseKernel<
                       float,
                       paddle_lite::kernels::mkldnn::HardSigmoidSpec>);
