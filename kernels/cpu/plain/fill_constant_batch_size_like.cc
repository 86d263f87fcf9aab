// fill_constant_batch_size_like on CPU: Out[:] = str_value if non-empty,
// else value (ops.md 9.2; parsed as fill_constant parses it).
#include <algorithm>
#include <string>
#include <type_traits>

#include "framework/kernel_registry.h"
#include "operators/fill_constant_value.h"
#include "platform/element_convert.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class FillConstantBatchSizeLikeKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    auto* out = ctx.Output<framework::Tensor>("Out");
    T* o = out->mutable_data<T>(ctx.GetPlace());
    const auto str_value = ctx.Attr<std::string>("str_value");
    T value;
    if (str_value.empty()) {
      value = platform::ConvertElement<T>(ctx.Attr<float>("value"));
    } else {
      const operators::FillValue v = operators::ParseFillStrValue(str_value);
      if constexpr (std::is_integral_v<T>) {
        // inf and nan give integer outputs 0, as in fill_constant.
        value = v.special  ? T(0)
                : v.is_int ? platform::ConvertElement<T>(v.i)
                           : platform::ConvertElement<T>(v.d);
      } else {
        value = platform::ConvertElement<T>(v.d);
      }
    }
    std::fill(o, o + out->numel(), value);
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    fill_constant_batch_size_like,
    PLAIN,
    CPUPlace,
    paddle_lite::kernels::FillConstantBatchSizeLikeKernel<float>,
    paddle_lite::kernels::FillConstantBatchSizeLikeKernel<double>,
    paddle_lite::kernels::FillConstantBatchSizeLikeKernel<int32_t>,
    paddle_lite::kernels::FillConstantBatchSizeLikeKernel<int64_t>,
    paddle_lite::kernels::FillConstantBatchSizeLikeKernel<bool>,
    paddle_lite::kernels::FillConstantBatchSizeLikeKernel<
        paddle_lite::platform::float16>,
    paddle_lite::kernels::FillConstantBatchSizeLikeKernel<
        paddle_lite::platform::bfloat16>);
