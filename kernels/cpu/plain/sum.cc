// sum on CPU (spec §7.4).
#include <cstdint>
#include <vector>

#include "framework/kernel_registry.h"
#include "kernels/cpu/plain/wrapping_arith.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class SumKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto inputs = ctx.MultiInput<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    // Out may be X[0] itself (in-place accumulation): allocate first (a
    // no-op then), read the inputs' pointers after.
    T* o = out->mutable_data<T>(ctx.GetPlace());
    const int64_t n = out->numel();
    if (n == 0) return;
    std::vector<const T*> src;
    for (const framework::Tensor* t : inputs) src.push_back(t->data<T>());
    const int64_t count = static_cast<int64_t>(src.size());
    // Each element is read from every input before it is written, so any
    // input may alias Out.
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        n, static_cast<double>(count), [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            T acc = src[0][i];
            for (int64_t k = 1; k < count; ++k) {
              acc = WrappingAdd(acc, src[k][i]);
            }
            o[i] = acc;
          }
        });
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(sum,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::SumKernel<float>,
                   paddle_lite::kernels::SumKernel<double>,
                   paddle_lite::kernels::SumKernel<int32_t>,
                   paddle_lite::kernels::SumKernel<int64_t>);
