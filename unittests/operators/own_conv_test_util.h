// What the tests of the MKLDNN kernel's own convolution loops
// (pointwise_conv_util.h, depthwise_conv_util.h, stem_conv_util.h) share:
// their inputs, their reference activations and the check of a loop's
// output.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "operators/fused_activation.h"

namespace paddle_lite {
namespace testing {

/// Element i of an input: multiples of 1/8 in [-1, 1], exact in float so
/// that the loops and the reference sum the same numbers.
inline float PatternValue(int64_t i, int salt) {
  return 0.125f * static_cast<float>((i * 7 + salt * 13) % 17 - 8);
}

/// The fused activation, one value at a time.
inline float ReferenceActivate(const operators::FusedActivation& act, float x) {
  if (act.type == "relu") return std::max(x, 0.f);
  if (act.type == "relu6") return std::min(std::max(x, 0.f), act.beta);
  if (act.type == "leaky_relu") return x >= 0.f ? x : act.alpha * x;
  if (act.type == "hard_swish") {
    return x * std::min(std::max(x + 3.f, 0.f), 6.f) / 6.f;
  }
  if (act.type == "hard_sigmoid") {
    return std::min(std::max(act.alpha * x + act.beta, 0.f), 1.f);
  }
  if (act.type == "sigmoid") return 1.f / (1.f + std::exp(-x));
  return x;
}

/// Every activation the loops fuse, with the attributes models give them.
inline std::vector<operators::FusedActivation> OwnLoopActivations() {
  return {{""},
          {"relu"},
          {"relu6", 0.f, 0.5f},
          {"leaky_relu", 0.1f},
          {"hard_swish"},
          {"hard_sigmoid", 0.2f, 0.5f},
          {"sigmoid"}};
}

/// A window of the window loops' tests: sizes, strides and paddings.
struct TestWindow {
  int64_t kh, kw, sh, sw, top, bottom, left, right;
};

/// Sets `c` (a test's Case: DepthwiseConv's or StemConv's) to an input of
/// in_h x in_w under window `w`; false when that has no output.
template <typename Case>
bool SetTestWindow(const TestWindow& w, int64_t in_h, int64_t in_w, Case* c) {
  c->in_h = in_h;
  c->in_w = in_w;
  c->kernel_h = w.kh;
  c->kernel_w = w.kw;
  c->stride_h = w.sh;
  c->stride_w = w.sw;
  c->pad_top = w.top;
  c->pad_bottom = w.bottom;
  c->pad_left = w.left;
  c->pad_right = w.right;
  return in_h + w.top + w.bottom >= w.kh && in_w + w.left + w.right >= w.kw;
}

/// Checks `out` (channel-last pixels of `channels`) against `want`, and
/// that nothing was written past want's end (`out` is longer, its tail
/// NaN).
inline void ExpectLoopOutput(const std::vector<float>& out,
                             const std::vector<float>& want,
                             int64_t channels) {
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(out[i], want[i], 1e-4 * (1 + std::fabs(want[i])))
        << "pixel " << i / channels << " channel " << i % channels;
  }
  for (size_t i = want.size(); i < out.size(); ++i) {
    ASSERT_TRUE(std::isnan(out[i])) << "written past the end at " << i;
  }
}

}  // namespace testing
}  // namespace paddle_lite
