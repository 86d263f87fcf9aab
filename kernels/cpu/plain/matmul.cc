// matmul (v1) on CPU: alpha * op(X) @ op(Y) per batch, batches resolved by
// the op's own shape rules (operators/matmul_shape.h).
#include "framework/kernel_registry.h"
#include "kernels/cpu/plain/gemm.h"
#include "operators/matmul_shape.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class MatmulKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto* y = ctx.Input<framework::Tensor>("Y");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const operators::MatmulPlan plan = operators::PlanMatmul(
        x->dims(), y->dims(), ctx.Attr<bool>("transpose_X"),
        ctx.Attr<bool>("transpose_Y"));
    GemmShape shape{plan.m, plan.n, plan.k, plan.trans_x, plan.trans_y};
    T* o = out->mutable_data<T>(ctx.GetPlace());
    BatchedGemm<T>(ctx.device_context<platform::CPUDeviceContext>(), shape,
                   static_cast<T>(ctx.Attr<float>("alpha")), *x, plan.x_offsets,
                   *y, plan.y_offsets, o);
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(matmul,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::MatmulKernel<float>,
                   paddle_lite::kernels::MatmulKernel<double>);
