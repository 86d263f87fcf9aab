// batch_norm on cuDNN. X of any rank (2 to 5) is viewed as the 4-D NCHW
// tensor [outer, C, inner, 1] (channel-first layouts: outer = N, inner =
// the spatial size) or [outer, C, 1, 1] (channel-last: outer = everything
// but C), so one spatial batch norm covers every layout. Like the CPU
// kernel, inference uses the running Mean and Variance; otherwise the
// batch's own (biased) statistics, leaving the running ones and every
// other output untouched.
#include <algorithm>
#include <climits>
#include <string>
#include <type_traits>

#include "framework/kernel_registry.h"
#include "kernels/cuda/cuda_helper.h"
#include "kernels/cuda/cudnn/cudnn_util.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {
namespace {

template <typename T>
class BatchNormCudnnKernel : public framework::OpKernel<T> {
  static_assert(std::is_same_v<T, float>, "the cuDNN batch norm is fp32");

 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto* scale = ctx.Input<framework::Tensor>("Scale");
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    auto* y = ctx.Output<framework::Tensor>("Y");
    const auto& dims = x->dims();
    const auto layout = ctx.Attr<std::string>("data_layout");
    const bool channel_last = layout == "NHWC" || layout == "NDHWC";
    const int64_t c = channel_last ? dims.back() : dims[1];
    float* out = AllocateOutput<float>(ctx, y);
    if (x->numel() == 0) return;
    const int64_t outer = channel_last ? x->numel() / c : dims[0];
    const int64_t inner =
        channel_last
            ? 1
            : framework::Product(dims, 2, static_cast<int>(dims.size()));
    const CUDADeviceContext& dev = DeviceContextOf(ctx);
    const float* in = x->data<float>();
    const double epsilon = ctx.Attr<float>("epsilon");
    const bool running_stats = (ctx.Attr<bool>("is_test") &&
                                !ctx.Attr<bool>("trainable_statistics")) ||
                               ctx.Attr<bool>("use_global_stats");
    const float alpha = 1.0f;
    const float beta = 0.0f;
    CudnnTensorDesc x_desc, param_desc;
    const int64_t row = c * inner;

    if (!running_stats) {
      // The statistics span the whole batch: one call.
      SetTensor4d(x_desc, /*channel_last=*/false, outer, c, inner, 1);
      PDLITE_CUDNN_CHECK(cudnnDeriveBNTensorDescriptor(
          param_desc.get(), x_desc.get(), CUDNN_BATCHNORM_SPATIAL));
      // cuDNN also updates running averages; they go to scratch so the
      // op's Mean and Variance stay as they are (as on CPU).
      framework::Tensor scratch;
      scratch.Resize({2 * c});
      float* running = scratch.mutable_data<float>(ctx.GetPlace());
      PDLITE_CUDNN_CHECK(cudnnBatchNormalizationForwardTraining(
          dev.cudnn_handle(), CUDNN_BATCHNORM_SPATIAL, &alpha, &beta,
          x_desc.get(), in, x_desc.get(), out, param_desc.get(),
          scale->data<float>(), bias->data<float>(),
          /*exponentialAverageFactor=*/1.0, running, running + c, epsilon,
          /*resultSaveMean=*/nullptr, /*resultSaveInvVariance=*/nullptr));
      return;
    }

    // Inference normalizes every outer row alike: large tensors go in
    // slices of whole rows, within cuDNN's int sizes.
    CudnnInt(row, "the elements of one batch_norm row");
    const int64_t rows_per_call = std::max<int64_t>(1, INT_MAX / row);
    const float* mean = ctx.Input<framework::Tensor>("Mean")->data<float>();
    const float* variance =
        ctx.Input<framework::Tensor>("Variance")->data<float>();
    int64_t described = -1;
    for (int64_t r0 = 0; r0 < outer; r0 += rows_per_call) {
      const int64_t rows = std::min(rows_per_call, outer - r0);
      if (rows != described) {
        SetTensor4d(x_desc, /*channel_last=*/false, rows, c, inner, 1);
        PDLITE_CUDNN_CHECK(cudnnDeriveBNTensorDescriptor(
            param_desc.get(), x_desc.get(), CUDNN_BATCHNORM_SPATIAL));
        described = rows;
      }
      PDLITE_CUDNN_CHECK(cudnnBatchNormalizationForwardInference(
          dev.cudnn_handle(), CUDNN_BATCHNORM_SPATIAL, &alpha, &beta,
          x_desc.get(), in + r0 * row, x_desc.get(), out + r0 * row,
          param_desc.get(), scale->data<float>(), bias->data<float>(), mean,
          variance, epsilon));
    }
  }
};

}  // namespace
}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(batch_norm,
                   CUDNN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::BatchNormCudnnKernel<float>);
