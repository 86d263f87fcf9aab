// fused_conv2d on cuDNN: the convolution, then Bias, ResidualData and the
// fuse_activation in one epilogue pass (the CPU kernel's order).
#include <string>

#include "kernels/cuda/cudnn/conv_util.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
class FusedConvCudnnKernel : public framework::OpKernel<T> {
  static_assert(std::is_same_v<T, float>, "the cuDNN convolution is fp32");

 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    RunConv2D(ctx,
              MakeEpilogueActivation(ctx.Attr<std::string>("fuse_activation"),
                                     ctx.Attr<float>("fuse_alpha"),
                                     ctx.Attr<float>("fuse_beta")));
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(fused_conv2d,
                   CUDNN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::FusedConvCudnnKernel<float>);
