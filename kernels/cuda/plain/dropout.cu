// dropout on a CUDA place, inference only: "upscale_in_train" passes X
// through (training already scaled it), "downgrade_in_infer" scales by
// 1 - dropout_prob, taken in float as Paddle does.
#include <string>

#include "kernels/cuda/cuda_helper.h"

namespace paddle_lite {
namespace kernels {

namespace {

template <typename T>
__global__ void ScaleBy(const T* in, T factor, int64_t n, T* out) {
  PDLITE_CUDA_KERNEL_LOOP(i, n) { out[i] = in[i] * factor; }
}

}  // namespace

template <typename T>
class DropoutCUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const bool upscale_in_train =
        ctx.Attr<std::string>("dropout_implementation") == "upscale_in_train";
    const T factor =
        upscale_in_train
            ? T(1)
            : static_cast<T>(1.0f - ctx.Attr<float>("dropout_prob"));
    const T* in = x->data<T>();
    T* o = cuda::AllocateOutput<T>(ctx, out);
    const int64_t n = x->numel();
    if ((o == in && factor == T(1)) || n == 0) return;
    const auto& dev = cuda::DeviceContextOf(ctx);
    if (factor == T(1)) {
      PDLITE_CUDA_CHECK(cudaMemcpyAsync(
          o, in, n * sizeof(T), cudaMemcpyDeviceToDevice, dev.stream()));
      return;
    }
    ScaleBy<T><<<cuda::BlocksFor(n), cuda::kThreadsPerBlock, 0, dev.stream()>>>(
        in, factor, n, o);
    PDLITE_CUDA_LAUNCH_CHECK();
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(dropout,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::DropoutCUDAKernel<float>,
                   paddle_lite::kernels::DropoutCUDAKernel<double>);
