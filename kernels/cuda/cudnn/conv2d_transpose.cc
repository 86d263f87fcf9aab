// conv2d_transpose on cuDNN: cuDNN's backward-data convolution, then Bias
// and the fuse_activation in one epilogue pass. The shared body is
// RunConv2DTranspose in conv_util.cc.
#include <string>

#include "kernels/cuda/cudnn/conv_util.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
class Conv2DTransposeCudnnKernel : public framework::OpKernel<T> {
  static_assert(std::is_same_v<T, float>, "the cuDNN convolution is fp32");

 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    RunConv2DTranspose(
        ctx, MakeEpilogueActivation(ctx.Attr<std::string>("fuse_activation"),
                                    ctx.Attr<float>("fuse_alpha"),
                                    ctx.Attr<float>("fuse_beta")));
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    conv2d_transpose,
    CUDNN,
    CUDAPlace,
    paddle_lite::kernels::cuda::Conv2DTransposeCudnnKernel<float>);
