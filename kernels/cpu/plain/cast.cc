// cast on CPU: converts every element of X to out_dtype.
#include "framework/kernel_registry.h"
#include "platform/device_context.h"
#include "platform/element_convert.h"

namespace paddle_lite {
namespace kernels {

namespace {

// Dispatches on the types X and Out really have, so one instantiation per
// (from, to) pair serves every registered kernel; ops.md 7.2 takes the
// input type from X, whatever in_dtype says.
void CastTensor(const framework::ExecutionContext& ctx,
                const framework::Tensor& x,
                framework::DataType out_type,
                framework::Tensor* out) {
  const int64_t n = x.numel();
  void* out_data = out->mutable_data(ctx.GetPlace(), out_type);
  if (n == 0) return;
  const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
  framework::VisitDataType(x.dtype(), [&](auto from_zero) {
    using From = decltype(from_zero);
    const From* in = x.data<From>();
    framework::VisitDataType(out_type, [&](auto to_zero) {
      using To = decltype(to_zero);
      To* o = static_cast<To*>(out_data);
      dev.ParallelFor(n, 1, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          o[i] = platform::ConvertElement<To>(in[i]);
        }
      });
    });
  });
}

}  // namespace

template <typename T>
class CastKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const auto out_type =
        static_cast<framework::DataType>(ctx.Attr<int32_t>("out_dtype"));
    if (out == x) {
      // In place: convert from a view of the old buffer into a new one.
      const framework::Tensor src = *x;
      *out = framework::Tensor();
      out->Resize(src.dims());
      out->set_lod(src.lod());
      CastTensor(ctx, src, out_type, out);
      return;
    }
    CastTensor(ctx, *x, out_type, out);
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    cast,
    PLAIN,
    CPUPlace,
    paddle_lite::kernels::CastKernel<float>,
    paddle_lite::kernels::CastKernel<double>,
    paddle_lite::kernels::CastKernel<int32_t>,
    paddle_lite::kernels::CastKernel<int64_t>,
    paddle_lite::kernels::CastKernel<bool>,
    paddle_lite::kernels::CastKernel<uint8_t>,
    paddle_lite::kernels::CastKernel<int8_t>,
    paddle_lite::kernels::CastKernel<int16_t>,
    paddle_lite::kernels::CastKernel<paddle_lite::platform::float16>,
    paddle_lite::kernels::CastKernel<paddle_lite::platform::bfloat16>);
