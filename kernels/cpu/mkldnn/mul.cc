// mul with oneDNN: X flattened to [M, K] times Y flattened to [K, N].
#include "kernels/cpu/mkldnn/matmul_kernel.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

template <typename T>
class MkldnnMulKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    MakeInputsPlain(ctx);  // reads its operands as plain arrays
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto* y = ctx.Input<framework::Tensor>("Y");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const int x_num_col_dims = ctx.Attr<int>("x_num_col_dims");
    const int y_num_col_dims = ctx.Attr<int>("y_num_col_dims");
    MatmulProblem p;
    p.m = framework::Product(x->dims(), 0, x_num_col_dims);
    p.k = framework::Product(x->dims(), x_num_col_dims, x->rank());
    p.n = framework::Product(y->dims(), y_num_col_dims, y->rank());
    // Empty products: PLAIN fills zeros.
    if (p.m == 0 || p.n == 0 || p.k == 0 ||
        !RunMatmul<T>(ctx, p, *x, *y, /*bias=*/nullptr, out)) {
      RunPlainKernel<T>(ctx);
    }
  }
};

}  // namespace
}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(mul,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnMulKernel<float>);
