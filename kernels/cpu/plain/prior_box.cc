#include <algorithm>
#include <cmath>
#include <vector>

#include "framework/kernel_registry.h"
#include "operators/prior_box_aspect_ratios.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class PriorBoxKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* input = ctx.Input<framework::Tensor>("Input");
    const auto* image = ctx.Input<framework::Tensor>("Image");
    auto* boxes = ctx.Output<framework::Tensor>("Boxes");
    auto* variances = ctx.Output<framework::Tensor>("Variances");
    const auto min_sizes = ctx.Attr<std::vector<float>>("min_sizes");
    const auto max_sizes = ctx.Attr<std::vector<float>>("max_sizes");
    const auto ratios = operators::ExpandPriorBoxAspectRatios(
        ctx.Attr<std::vector<float>>("aspect_ratios"), ctx.Attr<bool>("flip"));
    const auto variance = ctx.Attr<std::vector<float>>("variances");
    const bool clip = ctx.Attr<bool>("clip");
    const bool min_max_order = ctx.Attr<bool>("min_max_aspect_ratios_order");
    const T offset = static_cast<T>(ctx.Attr<float>("offset"));

    const int64_t feature_h = input->dims()[2];
    const int64_t feature_w = input->dims()[3];
    const T img_h = static_cast<T>(image->dims()[2]);
    const T img_w = static_cast<T>(image->dims()[3]);
    T step_w = static_cast<T>(ctx.Attr<float>("step_w"));
    T step_h = static_cast<T>(ctx.Attr<float>("step_h"));
    // Explicit steps are used only when both are given.
    if (step_w == T(0) || step_h == T(0)) {
      step_w = img_w / static_cast<T>(feature_w);
      step_h = img_h / static_cast<T>(feature_h);
    }

    // Half extents (hw, hh) of the priors of one cell, in emission order;
    // every cell uses the same list around its own centre.
    std::vector<std::pair<T, T>> halves;
    for (size_t s = 0; s < min_sizes.size(); ++s) {
      const float min_size = min_sizes[s];
      auto add_ratio = [&](float ar) {
        halves.emplace_back(static_cast<T>(min_size * std::sqrt(ar) / 2.),
                            static_cast<T>(min_size / std::sqrt(ar) / 2.));
      };
      auto add_max_square = [&]() {
        if (max_sizes.empty()) return;
        const T half = static_cast<T>(std::sqrt(min_size * max_sizes[s]) / 2.);
        halves.emplace_back(half, half);
      };
      if (min_max_order) {
        const T half = static_cast<T>(min_size / 2.);
        halves.emplace_back(half, half);
        add_max_square();
        for (float ar : ratios) {
          if (std::fabs(ar - 1.) < 1e-6) continue;
          add_ratio(ar);
        }
      } else {
        for (float ar : ratios) add_ratio(ar);
        add_max_square();
      }
    }
    const int64_t num_priors = static_cast<int64_t>(halves.size());

    T* box_out = boxes->mutable_data<T>(ctx.GetPlace());
    T* var_out = variances->mutable_data<T>(ctx.GetPlace());
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        feature_h * feature_w, 12.0 * num_priors,
        [&](int64_t begin, int64_t end) {
          for (int64_t cell = begin; cell < end; ++cell) {
            const int64_t h = cell / feature_w;
            const int64_t w = cell % feature_w;
            const T cx = (static_cast<T>(w) + offset) * step_w;
            const T cy = (static_cast<T>(h) + offset) * step_h;
            T* b = box_out + cell * num_priors * 4;
            T* v = var_out + cell * num_priors * 4;
            for (int64_t p = 0; p < num_priors; ++p, b += 4, v += 4) {
              const T hw = halves[p].first;
              const T hh = halves[p].second;
              b[0] = (cx - hw) / img_w;
              b[1] = (cy - hh) / img_h;
              b[2] = (cx + hw) / img_w;
              b[3] = (cy + hh) / img_h;
              if (clip) {
                for (int j = 0; j < 4; ++j) {
                  b[j] = std::min(std::max(b[j], T(0)), T(1));
                }
              }
              for (int j = 0; j < 4; ++j) v[j] = static_cast<T>(variance[j]);
            }
          }
        });
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(prior_box,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::PriorBoxKernel<float>,
                   paddle_lite::kernels::PriorBoxKernel<double>);
