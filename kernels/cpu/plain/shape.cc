// shape on CPU: writes Input's dims as int32, whatever Input's type.
#include "framework/kernel_registry.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class ShapeKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* input = ctx.Input<framework::Tensor>("Input");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const framework::DDim dims = input->dims();  // Out may alias Input
    out->Resize({static_cast<int64_t>(dims.size())});
    int32_t* o = out->mutable_data<int32_t>(ctx.GetPlace());
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
    CPUPlace,
    paddle_lite::kernels::ShapeKernel<float>,
    paddle_lite::kernels::ShapeKernel<double>,
    paddle_lite::kernels::ShapeKernel<int32_t>,
    paddle_lite::kernels::ShapeKernel<int64_t>,
    paddle_lite::kernels::ShapeKernel<bool>,
    paddle_lite::kernels::ShapeKernel<uint8_t>,
    paddle_lite::kernels::ShapeKernel<int8_t>,
    paddle_lite::kernels::ShapeKernel<int16_t>,
    paddle_lite::kernels::ShapeKernel<paddle_lite::platform::float16>,
    paddle_lite::kernels::ShapeKernel<paddle_lite::platform::bfloat16>);
