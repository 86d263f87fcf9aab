// hard_sigmoid on the CUDA place: max(0, min(1, slope * x + offset)).
#include "kernels/cuda/plain/activation_util.cuh"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
class HardSigmoidCUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    UnaryCUDACompute<T>(ctx, activation::HardSigmoid<T>{
                                 static_cast<T>(ctx.Attr<float>("slope")),
                                 static_cast<T>(ctx.Attr<float>("offset"))});
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(hard_sigmoid,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::HardSigmoidCUDAKernel<float>);
