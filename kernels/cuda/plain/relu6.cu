// relu6 on the CUDA place: min(max(x, 0), threshold).
#include "kernels/cuda/plain/activation_util.cuh"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
class Relu6CUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    UnaryCUDACompute<T>(ctx, activation::Relu6<T>{
                                 static_cast<T>(ctx.Attr<float>("threshold"))});
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(relu6,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::Relu6CUDAKernel<float>);
