// softmax on cuDNN along any axis: X is viewed as [outer, n, inner, 1]
// (n = dims[axis]) and cuDNN's channel-mode softmax normalizes over n for
// every (outer, inner) pair, subtracting the max first like the CPU kernel.
#include <algorithm>
#include <climits>
#include <type_traits>

#include "framework/kernel_registry.h"
#include "kernels/cuda/cuda_helper.h"
#include "kernels/cuda/cudnn/cudnn_util.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {
namespace {

template <typename T>
class SoftmaxCudnnKernel : public framework::OpKernel<T> {
  static_assert(std::is_same_v<T, float>, "the cuDNN softmax is fp32");

 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    float* o = AllocateOutput<float>(ctx, out);
    const CUDADeviceContext& dev = DeviceContextOf(ctx);
    const framework::DDim& dims = x->dims();
    const int rank = static_cast<int>(dims.size());
    if (rank == 0) {  // Paddle defines the softmax of a 0-D tensor as 1
      CudnnTensorDesc one;
      SetTensor4d(one, /*channel_last=*/false, 1, 1, 1, 1);
      const float value = 1.0f;
      PDLITE_CUDNN_CHECK(
          cudnnSetTensor(dev.cudnn_handle(), one.get(), o, &value));
      return;
    }
    int axis = ctx.Attr<int>("axis");
    if (axis < 0) axis += rank;
    const int64_t n = dims[axis];
    const int64_t inner = framework::Product(dims, axis + 1, rank);
    const int64_t outer = framework::Product(dims, 0, axis);
    if (outer == 0 || inner == 0 || n == 0) return;
    const float* in = x->data<float>();

    // cuDNN indexes with ints: large tensors go in slices of whole outer
    // rows.
    const int64_t row = n * inner;
    CudnnInt(row, "the elements of one softmax slice");
    const int64_t rows_per_call = std::max<int64_t>(1, INT_MAX / row);
    CudnnTensorDesc desc;
    int64_t described = -1;
    const float alpha = 1.0f;
    const float beta = 0.0f;
    for (int64_t r0 = 0; r0 < outer; r0 += rows_per_call) {
      const int64_t rows = std::min(rows_per_call, outer - r0);
      if (rows != described) {
        SetTensor4d(desc, /*channel_last=*/false, rows, n, inner, 1);
        described = rows;
      }
      PDLITE_CUDNN_CHECK(
          cudnnSoftmaxForward(dev.cudnn_handle(), CUDNN_SOFTMAX_ACCURATE,
                              CUDNN_SOFTMAX_MODE_CHANNEL, &alpha, desc.get(),
                              in + r0 * row, &beta, desc.get(), o + r0 * row));
    }
  }
};

}  // namespace
}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(softmax,
                   CUDNN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::SoftmaxCudnnKernel<float>);
