#include "kernels/cpu/mkldnn/eltwise_kernel.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

struct HardSwishSpec {
  EltwiseSpec operator()(const framework::ExecutionContext& ctx) const {
    // oneDNN 2.6 fixes hardswish to x * min(max(x + 3, 0), 6) / 6: Paddle's
    // default threshold, scale and offset.
    EltwiseSpec spec;
    spec.algorithm = dnnl::algorithm::eltwise_hardswish;
    spec.exact = ctx.Attr<float>("threshold") == 6.f &&
                 ctx.Attr<float>("scale") == 6.f &&
                 ctx.Attr<float>("offset") == 3.f;
    return spec;
  }
};

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(hard_swish,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnEltwiseKernel<
                       float,
                       paddle_lite::kernels::mkldnn::HardSwishSpec>);
