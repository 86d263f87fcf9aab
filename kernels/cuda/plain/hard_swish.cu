// hard_swish on the CUDA place: x * min(max(x + offset, 0), threshold) / scale.
#include "kernels/cuda/plain/activation_util.cuh"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
class HardSwishCUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    UnaryCUDACompute<T>(ctx, activation::HardSwish<T>{
                                 static_cast<T>(ctx.Attr<float>("threshold")),
                                 static_cast<T>(ctx.Attr<float>("scale")),
                                 static_cast<T>(ctx.Attr<float>("offset"))});
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(hard_swish,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::HardSwishCUDAKernel<float>);
