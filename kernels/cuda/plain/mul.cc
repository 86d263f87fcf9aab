// mul on cuBLAS: one GEMM of X flattened to [M, K] and Y flattened to
// [K, N].
#include <type_traits>

#include "framework/kernel_registry.h"
#include "kernels/cuda/cuda_helper.h"
#include "kernels/cuda/plain/cublas_gemm_util.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
class MulCUDAKernel : public framework::OpKernel<T> {
  static_assert(std::is_same_v<T, float>, "the cuBLAS mul is fp32");

 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto* y = ctx.Input<framework::Tensor>("Y");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const int x_num_col_dims = ctx.Attr<int>("x_num_col_dims");
    const int y_num_col_dims = ctx.Attr<int>("y_num_col_dims");
    CublasGemmShape shape;
    shape.m = framework::Product(x->dims(), 0, x_num_col_dims);
    shape.k = framework::Product(x->dims(), x_num_col_dims, x->rank());
    shape.n = framework::Product(y->dims(), y_num_col_dims, y->rank());
    float* o = AllocateOutput<float>(ctx, out);
    CublasBatchedGemm(DeviceContextOf(ctx), shape, 1.0f, *x,
                      /*a_offsets=*/{0}, *y, /*b_offsets=*/{0}, o);
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(mul,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::MulCUDAKernel<float>);
