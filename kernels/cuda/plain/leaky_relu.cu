// leaky_relu on the CUDA place: x >= 0 ? x : alpha * x.
#include "kernels/cuda/plain/activation_util.cuh"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
class LeakyReluCUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    UnaryCUDACompute<T>(ctx, activation::LeakyRelu<T>{
                                 static_cast<T>(ctx.Attr<float>("alpha"))});
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(leaky_relu,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::LeakyReluCUDAKernel<float>);
