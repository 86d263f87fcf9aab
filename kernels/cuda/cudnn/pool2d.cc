// pool2d on cuDNN where cuDNN's pooling gives exactly the CPU kernel's
// windows and divisors; the other cases (adaptive windows that do not tile
// the input, asymmetric or ceil-mode paddings, paddings as large as the
// window) run the direct kernel of pool2d_util.cu.
#include <string>
#include <type_traits>

#include "framework/kernel_registry.h"
#include "kernels/cuda/cuda_helper.h"
#include "kernels/cuda/cudnn/cudnn_util.h"
#include "kernels/cuda/cudnn/pool2d_util.h"
#include "operators/conv_pool_shape.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {
namespace {

// One spatial dim of a pooling cuDNN can run: window, padding and stride.
struct CudnnPoolDim {
  int64_t window = 0;
  int64_t pad = 0;
  int64_t stride = 1;
};

// True (and `dim` set) when cuDNN's pooling along one dim has the CPU
// kernel's windows (pool2d_util.cu spells them out). Adaptive windows
// must tile the input evenly: then they are plain windows of in / out
// with that stride. Otherwise the padding must be symmetric and smaller
// than the window (cuDNN's rule), and cuDNN's rounded-down output size
// must be the op's: then no window reaches past in + pad, which is where
// the CPU kernel's divisor would stop counting padding.
bool CudnnCanPoolDim(bool adaptive,
                     int64_t in,
                     int64_t out,
                     int64_t kernel,
                     int64_t stride,
                     int64_t pad_begin,
                     int64_t pad_end,
                     CudnnPoolDim* dim) {
  if (adaptive) {
    if (out <= 0 || in % out != 0) return false;
    dim->window = in / out;
    dim->stride = in / out;
    dim->pad = 0;
    return dim->window > 0;
  }
  if (pad_begin != pad_end || pad_begin < 0 || pad_begin >= kernel) {
    return false;
  }
  const int64_t span = in + 2 * pad_begin - kernel;
  if (span < 0 || span / stride + 1 != out) return false;
  dim->window = kernel;
  dim->stride = stride;
  dim->pad = pad_begin;
  return true;
}

template <typename T>
class Pool2dCudnnKernel : public framework::OpKernel<T> {
  static_assert(std::is_same_v<T, float>, "the cuDNN pooling is fp32");

 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const operators::Pool2DGeometry g =
        operators::ResolvePool2D(ctx.op(), x->dims());
    float* o = AllocateOutput<float>(ctx, out);
    if (out->numel() == 0) return;
    const CUDADeviceContext& dev = DeviceContextOf(ctx);
    const float* in = x->data<float>();
    const bool is_max = ctx.Attr<std::string>("pooling_type") == "max";
    const bool exclusive = ctx.Attr<bool>("exclusive") || g.adaptive;

    CudnnPoolDim h, w;
    const bool cudnn =
        CudnnCanPoolDim(g.adaptive, g.in_h, g.out_h, g.kernel_h, g.stride_h,
                        g.pad.top, g.pad.bottom, &h) &&
        CudnnCanPoolDim(g.adaptive, g.in_w, g.out_w, g.kernel_w, g.stride_w,
                        g.pad.left, g.pad.right, &w) &&
        FitsCudnnInt(x->numel()) && FitsCudnnInt(out->numel()) &&
        FitsCudnnInt(h.window) && FitsCudnnInt(w.window) &&
        FitsCudnnInt(h.stride) && FitsCudnnInt(w.stride);
    if (!cudnn) {
      Pool2DParams p;
      p.channel_last = g.channel_last;
      p.adaptive = g.adaptive;
      p.is_max = is_max;
      p.exclusive = exclusive;
      p.batch = g.batch;
      p.channels = g.channels;
      p.in_h = g.in_h;
      p.in_w = g.in_w;
      p.out_h = g.out_h;
      p.out_w = g.out_w;
      p.kernel_h = g.kernel_h;
      p.kernel_w = g.kernel_w;
      p.stride_h = g.stride_h;
      p.stride_w = g.stride_w;
      p.pad_top = g.pad.top;
      p.pad_left = g.pad.left;
      LaunchPool2D(dev.stream(), p, in, o);
      return;
    }

    CudnnTensorDesc x_desc, y_desc;
    SetTensor4d(x_desc, g.channel_last, g.batch, g.channels, g.in_h, g.in_w);
    SetTensor4d(y_desc, g.channel_last, g.batch, g.channels, g.out_h, g.out_w);
    CudnnPoolingDesc pool_desc;
    const cudnnPoolingMode_t mode =
        is_max ? CUDNN_POOLING_MAX
               : (exclusive ? CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING
                            : CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING);
    PDLITE_CUDNN_CHECK(cudnnSetPooling2dDescriptor(
        pool_desc.get(), mode, CUDNN_PROPAGATE_NAN, static_cast<int>(h.window),
        static_cast<int>(w.window), static_cast<int>(h.pad),
        static_cast<int>(w.pad), static_cast<int>(h.stride),
        static_cast<int>(w.stride)));
    const float alpha = 1.0f;
    const float beta = 0.0f;
    PDLITE_CUDNN_CHECK(cudnnPoolingForward(dev.cudnn_handle(), pool_desc.get(),
                                           &alpha, x_desc.get(), in, &beta,
                                           y_desc.get(), o));
  }
};

}  // namespace
}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(pool2d,
                   CUDNN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::Pool2dCudnnKernel<float>);
