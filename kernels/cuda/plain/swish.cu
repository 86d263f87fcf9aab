// swish on the CUDA place: x / (1 + exp(-beta * x)).
#include "kernels/cuda/plain/activation_util.cuh"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
class SwishCUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    UnaryCUDACompute<T>(
        ctx, activation::Swish<T>{static_cast<T>(ctx.Attr<float>("beta"))});
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(swish,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::SwishCUDAKernel<float>);
