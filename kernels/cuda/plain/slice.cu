// slice on the CUDA place: the sub-block of Input that
// operators::ComputeSliceBounds describes (the same function shape
// inference and the CPU kernel use), gathered with strided copies.
#include <vector>

#include "kernels/cuda/cuda_helper.h"
#include "kernels/cuda/plain/host_values_util.h"
#include "kernels/cuda/plain/strided_copy_util.cuh"
#include "operators/slice_utils.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
class SliceCUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* input = ctx.Input<framework::Tensor>("Input");
    auto* out = ctx.Output<framework::Tensor>("Out");
    // Starts and ends given as tensors are read on the host (a synchronous
    // copy when they are on the device): they decide the launch.
    const HostInputsContext host_ctx(
        ctx,
        {"StartsTensor", "EndsTensor", "StartsTensorList", "EndsTensorList"});
    const operators::SliceBounds b =
        operators::ComputeSliceBounds(host_ctx.context());
    operators::CheckSliceOutput(*out, b);
    T* o = AllocateOutput<T>(ctx, out);
    if (out->numel() == 0) return;
    const framework::DDim& in_dims = input->dims();
    const int rank = static_cast<int>(in_dims.size());
    std::vector<int64_t> strides(rank, 1);
    for (int i = rank - 2; i >= 0; --i) {
      strides[i] = strides[i + 1] * in_dims[i + 1];
    }
    int64_t base = 0;
    for (int i = 0; i < rank; ++i) base += b.starts[i] * strides[i];
    CopyStrided(DeviceContextOf(ctx), input->data<T>() + base, o,
                CoalesceView(b.sliced_dims, strides, "slice"));
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(slice,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::SliceCUDAKernel<float>,
                   paddle_lite::kernels::cuda::SliceCUDAKernel<double>,
                   paddle_lite::kernels::cuda::SliceCUDAKernel<int32_t>,
                   paddle_lite::kernels::cuda::SliceCUDAKernel<int64_t>);
