// tanh on the CUDA place: tanh(x).
#include "kernels/cuda/plain/activation_util.cuh"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
class TanhCUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    UnaryCUDACompute<T>(ctx, activation::Tanh<T>{});
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(tanh,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::TanhCUDAKernel<float>);
