// matmul (v1) on cuBLAS: alpha * op(X) @ op(Y) per batch, batches resolved
// by the op's own shape rules (operators/matmul_shape.h).
#include <type_traits>

#include "framework/kernel_registry.h"
#include "kernels/cuda/cuda_helper.h"
#include "kernels/cuda/plain/cublas_gemm_util.h"
#include "operators/matmul_shape.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
class MatmulCUDAKernel : public framework::OpKernel<T> {
  static_assert(std::is_same_v<T, float>, "the cuBLAS matmul is fp32");

 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto* y = ctx.Input<framework::Tensor>("Y");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const operators::MatmulPlan plan = operators::PlanMatmul(
        x->dims(), y->dims(), ctx.Attr<bool>("transpose_X"),
        ctx.Attr<bool>("transpose_Y"));
    const CublasGemmShape shape{plan.m, plan.n, plan.k, plan.trans_x,
                                plan.trans_y};
    float* o = AllocateOutput<float>(ctx, out);
    CublasBatchedGemm(DeviceContextOf(ctx), shape, ctx.Attr<float>("alpha"), *x,
                      plan.x_offsets, *y, plan.y_offsets, o);
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(matmul,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::MatmulCUDAKernel<float>);
