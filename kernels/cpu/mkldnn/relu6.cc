#include "kernels/cpu/mkldnn/eltwise_kernel.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

struct Relu6Spec {
  EltwiseSpec operator()(const framework::ExecutionContext& ctx) const {
    // min(max(x, 0), threshold); oneDNN's bounded_relu returns 0 below 0
    // even for a negative threshold, where Paddle returns the threshold.
    EltwiseSpec spec;
    spec.algorithm = dnnl::algorithm::eltwise_bounded_relu;
    spec.alpha = ctx.Attr<float>("threshold");
    spec.exact = spec.alpha >= 0.f;
    return spec;
  }
};

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(relu6,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnEltwiseKernel<
                       float,
                       paddle_lite::kernels::mkldnn::Relu6Spec>);
