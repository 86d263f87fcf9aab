// relu on the CUDA place: max(x, 0).
#include "kernels/cuda/plain/activation_util.cuh"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
class ReluCUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    UnaryCUDACompute<T>(ctx, activation::Relu<T>{});
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(relu,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::ReluCUDAKernel<float>);
