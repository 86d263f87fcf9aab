// matmul_v2 on CPU: op(X) @ op(Y) per broadcast batch, batches resolved by
// the op's own shape rules (operators/matmul_shape.h).
#include "framework/kernel_registry.h"
#include "kernels/cpu/plain/gemm.h"
#include "operators/matmul_shape.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class MatmulV2Kernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto* y = ctx.Input<framework::Tensor>("Y");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const operators::MatmulPlan plan =
        operators::PlanMatmulV2(x->dims(), y->dims(), ctx.Attr<bool>("trans_x"),
                                ctx.Attr<bool>("trans_y"));
    GemmShape shape{plan.m, plan.n, plan.k, plan.trans_x, plan.trans_y};
    T* o = out->mutable_data<T>(ctx.GetPlace());
    BatchedGemm<T>(ctx.device_context<platform::CPUDeviceContext>(), shape,
                   T(1), *x, plan.x_offsets, *y, plan.y_offsets, o);
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(matmul_v2,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::MatmulV2Kernel<float>,
                   paddle_lite::kernels::MatmulV2Kernel<double>,
                   paddle_lite::kernels::MatmulV2Kernel<int32_t>,
                   paddle_lite::kernels::MatmulV2Kernel<int64_t>);
