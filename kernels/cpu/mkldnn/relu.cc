#include "kernels/cpu/mkldnn/eltwise_kernel.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

struct ReluSpec {
  EltwiseSpec operator()(const framework::ExecutionContext& ctx) const {
    EltwiseSpec spec;
    spec.algorithm = dnnl::algorithm::eltwise_relu;
    return spec;
  }
};

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(relu,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnEltwiseKernel<
                       float,
                       paddle_lite::kernels::mkldnn::ReluSpec>);
