// scale on the CUDA place: Out = scale * X + bias (bias_after_scale) or
// scale * (X + bias), with the scale from ScaleTensor when it is bound.
#include <type_traits>

#include "kernels/cuda/cuda_helper.h"
#include "kernels/cuda/plain/host_values_util.h"
#include "platform/element_convert.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

namespace {

template <typename T>
struct ScaleFunctor {
  T scale;
  T bias;
  bool bias_after_scale;

  // The CPU kernel rounds the product before adding; keep nvcc from fusing
  // them into one multiply-add.
  __device__ static T Mul(T a, T b) {
    if constexpr (std::is_same_v<T, float>) {
      return __fmul_rn(a, b);
    } else if constexpr (std::is_same_v<T, double>) {
      return __dmul_rn(a, b);
    } else {
      return a * b;
    }
  }
  __device__ T operator()(T x) const {
    return bias_after_scale ? Mul(scale, x) + bias : scale * (x + bias);
  }
};

template <typename T, typename F>
__global__ void ScaleKernel(const T* in, T* out, int64_t n, F f) {
  PDLITE_CUDA_KERNEL_LOOP(i, n) { out[i] = f(in[i]); }
}

}  // namespace

template <typename T>
class ScaleCUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const auto& dev = DeviceContextOf(ctx);
    double scale_value = ctx.Attr<float>("scale");
    if (const auto* st = ctx.Input<framework::Tensor>("ScaleTensor")) {
      // The one value decides every element: it is read on the host, which
      // waits for the stream when the tensor is on the device.
      const framework::Tensor host = ToHost(dev, *st);
      framework::VisitDataType(host.dtype(), [&](auto v) {
        using S = decltype(v);
        const S s = host.data<S>()[0];
        if constexpr (std::is_arithmetic_v<S>) {
          scale_value = static_cast<double>(s);
        } else {  // float16, bfloat16: convert through float
          scale_value = static_cast<float>(s);
        }
      });
    }
    // As on the CPU: scale and bias are converted to the element type
    // first, so integer tensors scale by the truncated value (out of the
    // type's range: as cast does, where a plain conversion is undefined).
    const ScaleFunctor<T> f{
        platform::ConvertElement<T>(scale_value),
        platform::ConvertElement<T>(ctx.Attr<float>("bias")),
        ctx.Attr<bool>("bias_after_scale")};
    T* o = AllocateOutput<T>(ctx, out);
    const int64_t n = x->numel();
    if (n == 0) return;
    ScaleKernel<<<BlocksFor(n), kThreadsPerBlock, 0, dev.stream()>>>(
        x->data<T>(), o, n, f);
    PDLITE_CUDA_LAUNCH_CHECK();
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(scale,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::ScaleCUDAKernel<float>,
                   paddle_lite::kernels::cuda::ScaleCUDAKernel<double>,
                   paddle_lite::kernels::cuda::ScaleCUDAKernel<int32_t>,
                   paddle_lite::kernels::cuda::ScaleCUDAKernel<int64_t>);
