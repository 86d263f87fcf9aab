// fill_constant on CPU: Out[:] = the value from ValueTensor, str_value or
// value, in that order of priority.
#include <algorithm>

#include "kernels/cpu/plain/fill_value.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class FillConstantKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    auto* out = ctx.Output<framework::Tensor>("Out");
    T* o = out->mutable_data<T>(ctx.GetPlace());
    const framework::Tensor* value_tensor =
        ctx.HasInput("ValueTensor")
            ? ctx.Input<framework::Tensor>("ValueTensor")
            : nullptr;
    std::fill(o, o + out->numel(),
              FillElement<T>(ReadFillValue(ctx, value_tensor)));
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    fill_constant,
    PLAIN,
    CPUPlace,
    paddle_lite::kernels::FillConstantKernel<float>,
    paddle_lite::kernels::FillConstantKernel<double>,
    paddle_lite::kernels::FillConstantKernel<int32_t>,
    paddle_lite::kernels::FillConstantKernel<int64_t>,
    paddle_lite::kernels::FillConstantKernel<bool>,
    paddle_lite::kernels::FillConstantKernel<uint8_t>,
    paddle_lite::kernels::FillConstantKernel<int8_t>,
    paddle_lite::kernels::FillConstantKernel<int16_t>,
    paddle_lite::kernels::FillConstantKernel<paddle_lite::platform::float16>,
    paddle_lite::kernels::FillConstantKernel<paddle_lite::platform::bfloat16>);
