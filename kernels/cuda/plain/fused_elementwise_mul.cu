// fused_elementwise_mul on the CUDA place: the broadcasting elementwise_mul
// with the fused activation applied to each result before it is stored
// (one pass instead of the CPU kernel's two; same values).
#include "kernels/cuda/plain/activation_util.cuh"
#include "kernels/cuda/plain/elementwise_util.cuh"

namespace paddle_lite {
namespace kernels {
namespace cuda {

namespace {

template <typename T>
struct FusedMulFunctor {
  FusedActivationFunctor<T> act;
  __device__ T operator()(T x, T y) const { return act(MulFunctor<T>()(x, y)); }
};

}  // namespace

template <typename T>
class FusedElementwiseMulCUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const FusedActivationFunctor<T> act =
        MakeFusedActivation<T>(operators::FusedActivationOf(ctx));
    ElementwiseCUDACompute<T>(ctx, FusedMulFunctor<T>{act});
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    fused_elementwise_mul,
    PLAIN,
    CUDAPlace,
    paddle_lite::kernels::cuda::FusedElementwiseMulCUDAKernel<float>);
