#include "kernels/cpu/mkldnn/eltwise_kernel.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

struct LeakyReluSpec {
  EltwiseSpec operator()(const framework::ExecutionContext& ctx) const {
    // x > 0 ? x : alpha * x; at 0 both sides give 0, as Paddle's x >= 0.
    EltwiseSpec spec;
    spec.algorithm = dnnl::algorithm::eltwise_relu;
    spec.alpha = ctx.Attr<float>("alpha");
    return spec;
  }
};

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(leaky_relu,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnEltwiseKernel<
                       float,
                       paddle_lite::kernels::mkldnn::LeakyReluSpec>);
