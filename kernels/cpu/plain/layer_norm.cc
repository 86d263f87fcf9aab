// layer_norm on CPU (spec §4.2), one row of [left, right] at a time.
#include <cmath>
#include <cstdint>

#include "framework/kernel_registry.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class LayerNormKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto* scale = ctx.Input<framework::Tensor>("Scale");
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    auto* y = ctx.Output<framework::Tensor>("Y");
    auto* mean_out = ctx.Output<framework::Tensor>("Mean");
    auto* var_out = ctx.Output<framework::Tensor>("Variance");
    const auto& dims = x->dims();
    const int axis = ctx.Attr<int>("begin_norm_axis");
    const int64_t left = framework::Product(dims, 0, axis);
    const int64_t right =
        framework::Product(dims, axis, static_cast<int>(dims.size()));
    const double epsilon = ctx.Attr<float>("epsilon");
    T* out = y->mutable_data<T>(ctx.GetPlace());
    T* mean_data =
        mean_out ? mean_out->mutable_data<T>(ctx.GetPlace()) : nullptr;
    T* var_data = var_out ? var_out->mutable_data<T>(ctx.GetPlace()) : nullptr;
    if (left == 0 || right == 0) return;
    const T* in = x->data<T>();
    const T* gain = scale ? scale->data<T>() : nullptr;
    const T* shift = bias ? bias->data<T>() : nullptr;

    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        left, 6.0 * right, [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) {
            const T* row = in + r * right;
            T* dst = out + r * right;
            // Two passes in double: the biased variance of the centred
            // values, without the cancellation of E[x^2] - E[x]^2.
            double sum = 0;
            for (int64_t i = 0; i < right; ++i) sum += row[i];
            const double mean = sum / right;
            double sq = 0;
            for (int64_t i = 0; i < right; ++i) {
              const double d = row[i] - mean;
              sq += d * d;
            }
            const double var = sq / right;
            const double inv_std = 1.0 / std::sqrt(var + epsilon);
            for (int64_t i = 0; i < right; ++i) {
              double v = (row[i] - mean) * inv_std;
              if (gain) v *= static_cast<double>(gain[i]);
              if (shift) v += static_cast<double>(shift[i]);
              dst[i] = static_cast<T>(v);
            }
            if (mean_data) mean_data[r] = static_cast<T>(mean);
            if (var_data) var_data[r] = static_cast<T>(var);
          }
        });
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(layer_norm,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::LayerNormKernel<float>,
                   paddle_lite::kernels::LayerNormKernel<double>);
