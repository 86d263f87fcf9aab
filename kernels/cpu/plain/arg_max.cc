// arg_max on CPU (spec §13): X viewed as [outer, n, inner], n the reduced
// axis (all of X with flatten). Ties keep the first index; NaNs never win.
#include <cstdint>
#include <vector>

#include "framework/kernel_registry.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class ArgMaxKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    if (ctx.Attr<int>("dtype") == 2) {
      Run<int32_t>(ctx, *x, out);
    } else {
      Run<int64_t>(ctx, *x, out);
    }
  }

 private:
  template <typename IndexT>
  static void Run(const framework::ExecutionContext& ctx,
                  const framework::Tensor& x,
                  framework::Tensor* out) {
    IndexT* o = out->mutable_data<IndexT>(ctx.GetPlace());
    if (out->numel() == 0) return;
    const auto& dims = x.dims();
    const int rank = static_cast<int>(dims.size());
    int64_t outer = 1, n = x.numel(), inner = 1;
    if (!ctx.Attr<bool>("flatten") && rank > 0) {
      int64_t axis = ctx.Attr<int64_t>("axis");
      if (axis < 0) axis += rank;
      outer = framework::Product(dims, 0, static_cast<int>(axis));
      n = dims[axis];
      inner = framework::Product(dims, static_cast<int>(axis) + 1, rank);
    }
    const T* in = x.data<T>();
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        outer, 2.0 * n * inner, [&](int64_t begin, int64_t end) {
          // Walk the reduced axis outermost so each step reads `inner`
          // contiguous values.
          std::vector<T> best(inner);
          for (int64_t b = begin; b < end; ++b) {
            const T* src = in + b * n * inner;
            IndexT* dst = o + b * inner;
            for (int64_t i = 0; i < inner; ++i) {
              best[i] = src[i];
              dst[i] = 0;
            }
            for (int64_t k = 1; k < n; ++k) {
              const T* row = src + k * inner;
              for (int64_t i = 0; i < inner; ++i) {
                // A NaN never wins, also at index 0 (Paddle's scan starts
                // below every value); an all-NaN row gives 0.
                if (row[i] > best[i] ||
                    (best[i] != best[i] && row[i] == row[i])) {
                  best[i] = row[i];
                  dst[i] = static_cast<IndexT>(k);
                }
              }
            }
          }
        });
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(arg_max,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::ArgMaxKernel<float>,
                   paddle_lite::kernels::ArgMaxKernel<double>,
                   paddle_lite::kernels::ArgMaxKernel<int32_t>,
                   paddle_lite::kernels::ArgMaxKernel<int64_t>,
                   paddle_lite::kernels::ArgMaxKernel<int16_t>,
                   paddle_lite::kernels::ArgMaxKernel<uint8_t>);
