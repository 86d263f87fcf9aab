#include "kernels/cpu/mkldnn/eltwise_kernel.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

struct SigmoidSpec {
  EltwiseSpec operator()(const framework::ExecutionContext& ctx) const {
    EltwiseSpec spec;
    spec.algorithm = dnnl::algorithm::eltwise_logistic;
    return spec;
  }
};

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(sigmoid,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnEltwiseKernel<
                       float,
                       paddle_lite::kernels::mkldnn::SigmoidSpec>);
