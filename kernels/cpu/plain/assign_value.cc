// assign_value on CPU (ops.md 9.3): Out = the attribute's values.
#include "framework/kernel_registry.h"
#include "kernels/cpu/plain/value_list_kernel.h"
#include "operators/value_list_attr.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class AssignValueKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    auto* out = ctx.Output<framework::Tensor>("Out");
    T* o = out->mutable_data<T>(ctx.GetPlace());
    // Shape inference has checked that the list holds numel() values.
    const operators::ValueListAttr values =
        operators::ChooseValueList(ctx.op(), framework::ToDataType<T>());
    if (out->numel() > 0) ReadValueList<T>(ctx, values.name, out->numel(), o);
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    assign_value,
    PLAIN,
    CPUPlace,
    paddle_lite::kernels::AssignValueKernel<float>,
    paddle_lite::kernels::AssignValueKernel<double>,
    paddle_lite::kernels::AssignValueKernel<int32_t>,
    paddle_lite::kernels::AssignValueKernel<int64_t>,
    paddle_lite::kernels::AssignValueKernel<bool>,
    paddle_lite::kernels::AssignValueKernel<int8_t>,
    paddle_lite::kernels::AssignValueKernel<paddle_lite::platform::float16>,
    paddle_lite::kernels::AssignValueKernel<paddle_lite::platform::bfloat16>);
