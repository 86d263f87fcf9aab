// matmul (v1) with oneDNN: the flattened batch of whichever operand has
// one (a 2-D operand is reused for every batch); alpha as output scale.
#include "kernels/cpu/mkldnn/matmul_kernel.h"
#include "operators/matmul_shape.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

template <typename T>
class MkldnnMatmulKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    MakeInputsPlain(ctx);  // reads its operands as plain arrays
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto* y = ctx.Input<framework::Tensor>("Y");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const operators::MatmulPlan plan = operators::PlanMatmul(
        x->dims(), y->dims(), ctx.Attr<bool>("transpose_X"),
        ctx.Attr<bool>("transpose_Y"));
    const int64_t batch = static_cast<int64_t>(plan.x_offsets.size());
    MatmulProblem p;
    if (x->rank() >= 3 || y->rank() >= 3) {
      p.x_batch = {x->rank() >= 3 ? batch : 1};
      p.y_batch = {y->rank() >= 3 ? batch : 1};
      p.out_batch = {batch};
    }
    p.m = plan.m;
    p.n = plan.n;
    p.k = plan.k;
    p.trans_x = plan.trans_x;
    p.trans_y = plan.trans_y;
    p.alpha = ctx.Attr<float>("alpha");
    // Empty products: PLAIN fills zeros.
    if (batch == 0 || p.m == 0 || p.n == 0 || p.k == 0 ||
        !RunMatmul<T>(ctx, p, *x, *y, /*bias=*/nullptr, out)) {
      RunPlainKernel<T>(ctx);
    }
  }
};

}  // namespace
}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(matmul,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnMatmulKernel<float>);
