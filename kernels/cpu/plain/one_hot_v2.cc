// one_hot_v2 on CPU (spec §11.3). The kernel is chosen by the id type; the
// output type comes from the dtype attribute (float32 by default).
#include <algorithm>
#include <cstdint>

#include "framework/kernel_registry.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class OneHotV2Kernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    switch (ctx.Attr<int>("dtype")) {
      case 6:
        Run<double>(ctx);
        break;
      case 2:
        Run<int32_t>(ctx);
        break;
      case 3:
        Run<int64_t>(ctx);
        break;
      default:  // 5; InferShape rejected every other value
        Run<float>(ctx);
    }
  }

 private:
  template <typename OutT>
  static void Run(const framework::ExecutionContext& ctx) {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const int64_t depth = out->dims().back();
    const bool allow_out_of_range = ctx.Attr<bool>("allow_out_of_range");
    OutT* o = out->mutable_data<OutT>(ctx.GetPlace());
    std::fill(o, o + out->numel(), OutT(0));
    const int64_t n = x->numel();
    const T* ids = n > 0 ? x->data<T>() : nullptr;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t id = static_cast<int64_t>(ids[i]);
      if (id < 0 || id >= depth) {
        PADDLE_ENFORCE(allow_out_of_range,
                       errors::InvalidArgument(
                           "one_hot_v2: X element ", i, " is ", id,
                           ", out of range [0, ", depth, ") for depth ", depth,
                           "; set allow_out_of_range to get an all-zero "
                           "row"));
        continue;
      }
      o[i * depth + id] = OutT(1);
    }
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(one_hot_v2,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::OneHotV2Kernel<int32_t>,
                   paddle_lite::kernels::OneHotV2Kernel<int64_t>);
