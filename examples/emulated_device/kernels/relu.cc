// relu on the emu device: Out = max(X, 0).
#include "emu_device.h"
#include "framework/kernel_registry.h"

namespace emu {

using paddle_lite::framework::ExecutionContext;
using paddle_lite::framework::Tensor;

template <typename T>
class ReluKernel : public paddle_lite::framework::OpKernel<T> {
 public:
  void Compute(const ExecutionContext& ctx) const override {
    const Tensor* x = ctx.Input<Tensor>("X");
    Tensor* out = ctx.Output<Tensor>("Out");
    CheckOnDevice(*x, "relu", "X");
    const T* in = x->data<T>();
    T* o = out->mutable_data<T>(ctx.GetPlace());  // in the emu arena
    for (int64_t i = 0; i < x->numel(); ++i) {
      o[i] = in[i] > T(0) ? in[i] : T(0);
    }
    ctx.device_context<EmuDeviceContext>().Launch();
  }
};

}  // namespace emu

REGISTER_OP_DEVICE_KERNEL(relu,
                          PLAIN,
                          emu::kDeviceType,
                          emu::ReluKernel<float>);
