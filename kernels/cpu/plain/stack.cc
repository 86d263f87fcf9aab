// stack on CPU: Y[outer, i, inner] = X[i][outer, inner], where outer spans
// the dims before axis.
#include <cstring>
#include <vector>

#include "framework/kernel_registry.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class StackKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto xs = ctx.MultiInput<framework::Tensor>("X");
    auto* y = ctx.Output<framework::Tensor>("Y");
    T* o = y->mutable_data<T>(ctx.GetPlace());
    if (y->numel() == 0) return;
    const int rank = xs[0]->rank();
    int axis = ctx.Attr<int32_t>("axis");
    if (axis < 0) axis += rank + 1;
    const int64_t outer = framework::Product(xs[0]->dims(), 0, axis);
    const int64_t inner = framework::Product(xs[0]->dims(), axis, rank);
    const int64_t count = static_cast<int64_t>(xs.size());
    std::vector<const T*> in(xs.size());
    for (size_t i = 0; i < xs.size(); ++i) in[i] = xs[i]->data<T>();
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        outer, static_cast<double>(inner * count),
        [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) {
            for (int64_t i = 0; i < count; ++i) {
              std::memcpy(o + (r * count + i) * inner, in[i] + r * inner,
                          sizeof(T) * inner);
            }
          }
        });
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    stack,
    PLAIN,
    CPUPlace,
    paddle_lite::kernels::StackKernel<float>,
    paddle_lite::kernels::StackKernel<double>,
    paddle_lite::kernels::StackKernel<int32_t>,
    paddle_lite::kernels::StackKernel<int64_t>,
    paddle_lite::kernels::StackKernel<bool>,
    paddle_lite::kernels::StackKernel<uint8_t>,
    paddle_lite::kernels::StackKernel<int8_t>,
    paddle_lite::kernels::StackKernel<int16_t>,
    paddle_lite::kernels::StackKernel<paddle_lite::platform::float16>,
    paddle_lite::kernels::StackKernel<paddle_lite::platform::bfloat16>);
