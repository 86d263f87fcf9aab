// fill_constant on a CUDA place: Out[:] = the value from ValueTensor,
// str_value or value, in that order of priority (as on the CPU). The
// value is worked out on the host; one launch fills the output.
#include "kernels/cpu/plain/fill_value.h"
#include "kernels/cuda/cuda_helper.h"

namespace paddle_lite {
namespace kernels {

namespace {

template <typename T>
__global__ void Fill(T value, int64_t n, T* out) {
  PDLITE_CUDA_KERNEL_LOOP(i, n) { out[i] = value; }
}

}  // namespace

template <typename T>
class FillConstantCUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    auto* out = ctx.Output<framework::Tensor>("Out");
    T* o = cuda::AllocateOutput<T>(ctx, out);
    // A ValueTensor (one element, possibly on the device) is read through
    // a host copy, which waits for the stream; it is rare, and such a
    // fill is not part of a captured graph.
    framework::Tensor host_value;
    const framework::Tensor* value_tensor = nullptr;
    if (ctx.HasInput("ValueTensor")) {
      framework::TensorCopy(*ctx.Input<framework::Tensor>("ValueTensor"),
                            platform::CPUPlace{}, &host_value);
      value_tensor = &host_value;
    }
    const T value = FillElement<T>(ReadFillValue(ctx, value_tensor));
    const int64_t n = out->numel();
    if (n == 0) return;
    Fill<T><<<cuda::BlocksFor(n), cuda::kThreadsPerBlock, 0,
              cuda::DeviceContextOf(ctx).stream()>>>(value, n, o);
    PDLITE_CUDA_LAUNCH_CHECK();
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(fill_constant,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::FillConstantCUDAKernel<float>,
                   paddle_lite::kernels::FillConstantCUDAKernel<double>,
                   paddle_lite::kernels::FillConstantCUDAKernel<int32_t>,
                   paddle_lite::kernels::FillConstantCUDAKernel<int64_t>,
                   paddle_lite::kernels::FillConstantCUDAKernel<bool>);
