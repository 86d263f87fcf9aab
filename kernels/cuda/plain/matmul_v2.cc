// matmul_v2 on cuBLAS: op(X) @ op(Y) per broadcast batch, batches resolved
// by the op's own shape rules (operators/matmul_shape.h); broadcast
// batches run as strided-batched calls per run of uniform strides.
#include <type_traits>

#include "framework/kernel_registry.h"
#include "kernels/cuda/cuda_helper.h"
#include "kernels/cuda/plain/cublas_gemm_util.h"
#include "operators/matmul_shape.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
class MatmulV2CUDAKernel : public framework::OpKernel<T> {
  static_assert(std::is_same_v<T, float>, "the cuBLAS matmul_v2 is fp32");

 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto* y = ctx.Input<framework::Tensor>("Y");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const operators::MatmulPlan plan =
        operators::PlanMatmulV2(x->dims(), y->dims(), ctx.Attr<bool>("trans_x"),
                                ctx.Attr<bool>("trans_y"));
    const CublasGemmShape shape{plan.m, plan.n, plan.k, plan.trans_x,
                                plan.trans_y};
    float* o = AllocateOutput<float>(ctx, out);
    CublasBatchedGemm(DeviceContextOf(ctx), shape, 1.0f, *x, plan.x_offsets, *y,
                      plan.y_offsets, o);
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(matmul_v2,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::MatmulV2CUDAKernel<float>);
