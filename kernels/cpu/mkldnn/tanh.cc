#include "kernels/cpu/mkldnn/eltwise_kernel.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

struct TanhSpec {
  EltwiseSpec operator()(const framework::ExecutionContext& ctx) const {
    EltwiseSpec spec;
    spec.algorithm = dnnl::algorithm::eltwise_tanh;
    return spec;
  }
};

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(tanh,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnEltwiseKernel<
                       float,
                       paddle_lite::kernels::mkldnn::TanhSpec>);
