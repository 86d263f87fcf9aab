// sigmoid on the CUDA place: 1 / (1 + exp(-x)).
#include "kernels/cuda/plain/activation_util.cuh"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
class SigmoidCUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    UnaryCUDACompute<T>(ctx, activation::Sigmoid<T>{});
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(sigmoid,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::SigmoidCUDAKernel<float>);
