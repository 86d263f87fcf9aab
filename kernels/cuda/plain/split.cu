// split on the CUDA place: each outer row of X (the dims before axis) is
// cut into the rows of the outputs, so each output is one strided 2-D
// copy out of X (copy engine or one small kernel per element size). The part
// sizes are the output dims shape inference set (num, sections with -1, or
// SectionsTensorList).
#include <vector>

#include "kernels/cuda/cuda_helper.h"
#include "kernels/cuda/plain/copy_rows_util.cuh"
#include "kernels/cuda/plain/host_values_util.h"
#include "operators/shape_op_utils.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
class SplitCUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto& dev = DeviceContextOf(ctx);
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto outs = ctx.MultiOutput<framework::Tensor>("Out");
    int64_t axis = ctx.Attr<int32_t>("axis");
    if (ctx.HasInput("AxisTensor")) {
      axis = HostIntValues(dev, *ctx.Input<framework::Tensor>("AxisTensor"),
                           "split", "AxisTensor")[0];
    }
    const int a = operators::NormalizeAxis(axis, x->rank(), "split", "axis");
    const int64_t outer = framework::Product(x->dims(), 0, a);
    const int64_t x_row = framework::Product(x->dims(), a, x->rank());
    // Every output is allocated, even when there is nothing to copy.
    std::vector<T*> data;
    for (framework::Tensor* out : outs) {
      data.push_back(AllocateOutput<T>(ctx, out));
    }
    if (x->numel() == 0) return;
    const T* in = x->data<T>();
    int64_t offset = 0;
    for (size_t i = 0; i < outs.size(); ++i) {
      const framework::Tensor* out = outs[i];
      const int64_t row = framework::Product(out->dims(), a, out->rank());
      if (row > 0) {
        CopyRows(dev, in + offset, x_row, data[i], row, row, outer);
      }
      offset += row;
    }
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    split,
    PLAIN,
    CUDAPlace,
    paddle_lite::kernels::cuda::SplitCUDAKernel<float>,
    paddle_lite::kernels::cuda::SplitCUDAKernel<double>,
    paddle_lite::kernels::cuda::SplitCUDAKernel<int32_t>,
    paddle_lite::kernels::cuda::SplitCUDAKernel<int64_t>,
    paddle_lite::kernels::cuda::SplitCUDAKernel<bool>,
    paddle_lite::kernels::cuda::SplitCUDAKernel<uint8_t>,
    paddle_lite::kernels::cuda::SplitCUDAKernel<int8_t>,
    paddle_lite::kernels::cuda::SplitCUDAKernel<int16_t>,
    paddle_lite::kernels::cuda::SplitCUDAKernel<paddle_lite::platform::float16>,
    paddle_lite::kernels::cuda::SplitCUDAKernel<
        paddle_lite::platform::bfloat16>);
