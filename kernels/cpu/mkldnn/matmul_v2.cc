// matmul_v2 with oneDNN: NumPy-style batch broadcasting maps onto oneDNN's
// (batch dims of size 1 broadcast on either side).
#include <algorithm>

#include "kernels/cpu/mkldnn/matmul_kernel.h"
#include "operators/matmul_shape.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

/// The batch dims of a matmul_v2 operand (a vector has none), right-aligned
/// to `rank` with 1s.
Dims BatchDims(const framework::DDim& dims, int rank) {
  Dims batch(rank, 1);
  const int own = std::max(static_cast<int>(dims.size()) - 2, 0);
  std::copy(dims.begin(), dims.begin() + own, batch.end() - own);
  return batch;
}

template <typename T>
class MkldnnMatmulV2Kernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    MakeInputsPlain(ctx);  // reads its operands as plain arrays
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto* y = ctx.Input<framework::Tensor>("Y");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const operators::MatmulPlan plan =
        operators::PlanMatmulV2(x->dims(), y->dims(), ctx.Attr<bool>("trans_x"),
                                ctx.Attr<bool>("trans_y"));
    const int batch_rank = std::max(std::max(x->rank(), y->rank()) - 2, 0);
    MatmulProblem p;
    p.x_batch = BatchDims(x->dims(), batch_rank);
    p.y_batch = BatchDims(y->dims(), batch_rank);
    p.out_batch.resize(batch_rank);
    for (int i = 0; i < batch_rank; ++i) {
      p.out_batch[i] = std::max(p.x_batch[i], p.y_batch[i]);
    }
    p.m = plan.m;
    p.n = plan.n;
    p.k = plan.k;
    p.trans_x = plan.trans_x;
    p.trans_y = plan.trans_y;
    // Empty products (PLAIN fills zeros) and ranks beyond oneDNN's limit.
    if (plan.x_offsets.empty() || p.m == 0 || p.n == 0 || p.k == 0 ||
        batch_rank + 2 > DNNL_MAX_NDIMS ||
        !RunMatmul<T>(ctx, p, *x, *y, /*bias=*/nullptr, out)) {
      RunPlainKernel<T>(ctx);
    }
  }
};

}  // namespace
}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(matmul_v2,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnMatmulV2Kernel<float>);
