// fc with oneDNN: Input flattened to [M, K] times W [K, N], with the bias
// and relu applied by the matmul primitive itself.
#include <string>

#include "kernels/cpu/mkldnn/matmul_kernel.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

template <typename T>
class MkldnnFcKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    MakeInputsPlain(ctx);  // reads its operands as plain arrays
    const auto* input = ctx.Input<framework::Tensor>("Input");
    const auto* w = ctx.Input<framework::Tensor>("W");
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const int in_num_col_dims = ctx.Attr<int>("in_num_col_dims");
    MatmulProblem p;
    p.m = framework::Product(input->dims(), 0, in_num_col_dims);
    p.k = framework::Product(input->dims(), in_num_col_dims, input->rank());
    p.n = w->dims()[1];
    p.bias = bias != nullptr;
    p.activation = ctx.Attr<std::string>("activation_type");
    // Empty products: PLAIN fills zeros (then adds the bias).
    if (p.m == 0 || p.n == 0 || p.k == 0 ||
        !RunMatmul<T>(ctx, p, *input, *w, bias, out)) {
      RunPlainKernel<T>(ctx);
    }
  }
};

}  // namespace
}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(fc,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnFcKernel<float>);
