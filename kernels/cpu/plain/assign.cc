// assign on CPU: a deep copy of X (tensor or tensor array) into Out.
#include "framework/kernel_registry.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class AssignKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const framework::Variable* x = ctx.InputVar("X");
    framework::Variable* out = ctx.OutputVar("Out");
    if (x == out) return;  // assigning a variable to itself
    if (x->IsType<framework::TensorList>()) {
      const auto& src = x->Get<framework::TensorList>();
      auto* dst = out->GetMutable<framework::TensorList>();
      dst->resize(src.size());
      for (size_t i = 0; i < src.size(); ++i) {
        Copy(src[i], ctx.GetPlace(), &(*dst)[i]);
      }
      return;
    }
    Copy(x->Get<framework::Tensor>(), ctx.GetPlace(),
         out->GetMutable<framework::Tensor>());
  }

 private:
  // TensorCopy always gives dst a fresh buffer, so a copy never writes into
  // memory dst shared with another variable. A tensor that was never
  // written (an unused array slot) passes on its dims and LoD only.
  static void Copy(const framework::Tensor& src,
                   const platform::Place& place,
                   framework::Tensor* dst) {
    if (src.IsInitialized()) {
      framework::TensorCopy(src, place, dst);
      return;
    }
    *dst = framework::Tensor();
    dst->Resize(src.dims());
    dst->set_lod(src.lod());
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    assign,
    PLAIN,
    CPUPlace,
    paddle_lite::kernels::AssignKernel<float>,
    paddle_lite::kernels::AssignKernel<double>,
    paddle_lite::kernels::AssignKernel<int32_t>,
    paddle_lite::kernels::AssignKernel<int64_t>,
    paddle_lite::kernels::AssignKernel<bool>,
    paddle_lite::kernels::AssignKernel<uint8_t>,
    paddle_lite::kernels::AssignKernel<int8_t>,
    paddle_lite::kernels::AssignKernel<int16_t>,
    paddle_lite::kernels::AssignKernel<paddle_lite::platform::float16>,
    paddle_lite::kernels::AssignKernel<paddle_lite::platform::bfloat16>);
