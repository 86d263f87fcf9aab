// concat on the CUDA place: each row of Out (the dims before axis) is the
// rows of the inputs one after another, so each input is one strided 2-D
// copy into Out (copy engine or one small kernel per element size).
#include <vector>

#include "kernels/cuda/cuda_helper.h"
#include "kernels/cuda/plain/copy_rows_util.cuh"
#include "kernels/cuda/plain/host_values_util.h"
#include "operators/shape_op_utils.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
class ConcatCUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto& dev = DeviceContextOf(ctx);
    auto* out = ctx.Output<framework::Tensor>("Out");
    T* o = AllocateOutput<T>(ctx, out);
    if (out->numel() == 0) return;
    const int rank = out->rank();
    int64_t axis = ctx.Attr<int32_t>("axis");
    if (ctx.HasInput("AxisTensor")) {
      axis = HostIntValues(dev, *ctx.Input<framework::Tensor>("AxisTensor"),
                           "concat", "AxisTensor")[0];
    }
    const int a = operators::NormalizeAxis(axis, rank, "concat", "axis");
    const int64_t outer = framework::Product(out->dims(), 0, a);
    const int64_t out_row = out->numel() / outer;
    int64_t offset = 0;
    for (const framework::Tensor* x : ctx.MultiInput<framework::Tensor>("X")) {
      // Empty inputs contribute nothing (and may have another rank).
      if (x->numel() == 0) continue;
      const int64_t row = x->numel() / outer;
      CopyRows(dev, x->data<T>(), row, o + offset, out_row, row, outer);
      offset += row;
    }
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(concat,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::ConcatCUDAKernel<float>,
                   paddle_lite::kernels::cuda::ConcatCUDAKernel<double>,
                   paddle_lite::kernels::cuda::ConcatCUDAKernel<int32_t>,
                   paddle_lite::kernels::cuda::ConcatCUDAKernel<int64_t>,
                   paddle_lite::kernels::cuda::ConcatCUDAKernel<bool>,
                   paddle_lite::kernels::cuda::ConcatCUDAKernel<uint8_t>,
                   paddle_lite::kernels::cuda::ConcatCUDAKernel<int8_t>,
                   paddle_lite::kernels::cuda::ConcatCUDAKernel<int16_t>,
                   paddle_lite::kernels::cuda::ConcatCUDAKernel<
                       paddle_lite::platform::float16>,
                   paddle_lite::kernels::cuda::ConcatCUDAKernel<
                       paddle_lite::platform::bfloat16>);
