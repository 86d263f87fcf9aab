// The aspect-ratio list prior_box expands its `aspect_ratios` attribute to;
// shared by the op's shape inference and its kernels so the prior count
// and the emitted priors always agree.
#pragma once

#include <cmath>
#include <vector>

namespace paddle_lite {
namespace operators {

/// Returns [1.0] followed by every ratio of `ratios` not already within
/// 1e-6 of an entry, each followed by its reciprocal when `flip` is set.
inline std::vector<float> ExpandPriorBoxAspectRatios(
    const std::vector<float>& ratios, bool flip) {
  constexpr float kEpsilon = 1e-6f;
  std::vector<float> expanded = {1.0f};
  for (float ar : ratios) {
    bool seen = false;
    for (float have : expanded) {
      if (std::fabs(ar - have) < kEpsilon) {
        seen = true;
        break;
      }
    }
    if (seen) continue;
    expanded.push_back(ar);
    if (flip) expanded.push_back(1.0f / ar);
  }
  return expanded;
}

}  // namespace operators
}  // namespace paddle_lite
