// less_than on CPU: the element-wise broadcasting loop with a bool output.
#include "kernels/cpu/plain/elementwise_kernel.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class LessThanKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto* y = ctx.Input<framework::Tensor>("Y");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const operators::ElementwiseBroadcast shapes =
        operators::BroadcastElementwiseDims(ctx.op().Type(), x->dims(),
                                            y->dims(), ctx.Attr<int>("axis"));
    bool* o = out->mutable_data<bool>(ctx.GetPlace());
    if (out->numel() == 0) return;
    ElementwiseBroadcastLoop<T>(
        ctx.device_context<platform::CPUDeviceContext>(), shapes, x->data<T>(),
        y->data<T>(), o, [](T a, T b) { return a < b; });
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(less_than,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::LessThanKernel<float>,
                   paddle_lite::kernels::LessThanKernel<double>,
                   paddle_lite::kernels::LessThanKernel<int32_t>,
                   paddle_lite::kernels::LessThanKernel<int64_t>,
                   paddle_lite::kernels::LessThanKernel<bool>,
                   paddle_lite::kernels::LessThanKernel<int16_t>,
                   paddle_lite::kernels::LessThanKernel<int8_t>,
                   paddle_lite::kernels::LessThanKernel<uint8_t>);
