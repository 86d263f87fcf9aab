// fused_elementwise_add on the CUDA place: the broadcasting elementwise_add
// with the fused activation applied to each result before it is stored
// (one pass instead of the CPU kernel's two; same values).
#include "kernels/cuda/plain/activation_util.cuh"
#include "kernels/cuda/plain/elementwise_util.cuh"

namespace paddle_lite {
namespace kernels {
namespace cuda {

namespace {

template <typename T>
struct FusedAddFunctor {
  FusedActivationFunctor<T> act;
  __device__ T operator()(T x, T y) const { return act(AddFunctor<T>()(x, y)); }
};

}  // namespace

template <typename T>
class FusedElementwiseAddCUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const FusedActivationFunctor<T> act =
        MakeFusedActivation<T>(operators::FusedActivationOf(ctx));
    ElementwiseCUDACompute<T>(ctx, FusedAddFunctor<T>{act});
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    fused_elementwise_add,
    PLAIN,
    CUDAPlace,
    paddle_lite::kernels::cuda::FusedElementwiseAddCUDAKernel<float>);
