// shape on a CUDA place: Input's dims as int32, written to host memory.
// Only the dims are read, never the device data, and the ops reading a
// shape (slice, reshape2's ShapeTensor) need its values on the host for
// shape inference: a device copy would cost two transfers and a wait.
#include "framework/kernel_registry.h"
#include "platform/float16.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class ShapeCUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* input = ctx.Input<framework::Tensor>("Input");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const framework::DDim dims = input->dims();  // Out may alias Input
    out->Resize({static_cast<int64_t>(dims.size())});
    int32_t* o = out->mutable_data<int32_t>(platform::CPUPlace{});
    for (size_t i = 0; i < dims.size(); ++i) {
      o[i] = static_cast<int32_t>(dims[i]);
    }
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    shape,
    PLAIN,
    CUDAPlace,
    paddle_lite::kernels::ShapeCUDAKernel<float>,
    paddle_lite::kernels::ShapeCUDAKernel<double>,
    paddle_lite::kernels::ShapeCUDAKernel<int32_t>,
    paddle_lite::kernels::ShapeCUDAKernel<int64_t>,
    paddle_lite::kernels::ShapeCUDAKernel<bool>,
    paddle_lite::kernels::ShapeCUDAKernel<uint8_t>,
    paddle_lite::kernels::ShapeCUDAKernel<int8_t>,
    paddle_lite::kernels::ShapeCUDAKernel<int16_t>,
    paddle_lite::kernels::ShapeCUDAKernel<paddle_lite::platform::float16>);
