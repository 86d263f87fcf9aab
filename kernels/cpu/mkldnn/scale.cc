// scale with oneDNN's eltwise_linear (alpha * x + beta), so a scale
// between oneDNN kernels (fuse_scaled_residual's gate + 1) keeps their
// layout. A ScaleTensor input, or a bias added before a scale other than
// 1 (scale * (x + bias) rounds differently from scale * x + scale *
// bias), runs the PLAIN kernel.
#include "kernels/cpu/mkldnn/eltwise_kernel.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

struct ScaleSpec {
  EltwiseSpec operator()(const framework::ExecutionContext& ctx) const {
    EltwiseSpec spec;
    spec.algorithm = dnnl::algorithm::eltwise_linear;
    spec.alpha = ctx.Attr<float>("scale");
    const float bias = ctx.Attr<float>("bias");
    spec.beta = ctx.Attr<bool>("bias_after_scale") ? bias : spec.alpha * bias;
    spec.exact = ctx.Input<framework::Tensor>("ScaleTensor") == nullptr &&
                 (ctx.Attr<bool>("bias_after_scale") || spec.alpha == 1.f ||
                  bias == 0.f);
    return spec;
  }
};

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(scale,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnEltwiseKernel<
                       float,
                       paddle_lite::kernels::mkldnn::ScaleSpec>);
