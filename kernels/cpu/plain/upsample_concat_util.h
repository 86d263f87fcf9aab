// The join of fused_upsample_concat on NCHW maps, shared by its PLAIN
// kernel and fused_upsample_concat_conv2d's: each channel of an image
// copied pixel by pixel from its part's source row through the nearest
// index. Private to kernels/cpu/plain.
#pragma once

#include <cstdint>
#include <vector>

#include "framework/tensor.h"
#include "operators/upsample_shape.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

/// Writes the join `g` of `inputs` (NCHW) to `out` ([N, C, H, W] of g).
template <typename T>
void JoinUpsampled(const platform::CPUDeviceContext& dev,
                   const operators::UpsampleConcatGeometry& g,
                   const std::vector<const framework::Tensor*>& inputs,
                   T* out) {
  std::vector<operators::NearestIndex> index;
  for (const operators::UpsampledPart& p : g.parts) {
    index.push_back(operators::NearestIndexOf(p, g));
  }
  const int64_t plane = g.out_h * g.out_w;
  // One task per output channel of an image.
  dev.ParallelFor(
      g.batch * g.channels, static_cast<double>(plane),
      [&](int64_t begin, int64_t end) {
        for (int64_t task = begin; task < end; ++task) {
          const int64_t n = task / g.channels;
          const int64_t c = task % g.channels;
          size_t k = 0;
          while (c >= g.parts[k].channel_offset + g.parts[k].channels) ++k;
          const operators::UpsampledPart& p = g.parts[k];
          const operators::NearestIndex& at = index[k];
          const T* in =
              inputs[p.input]->data<T>() +
              (n * p.channels + c - p.channel_offset) * p.in_h * p.in_w;
          T* to = out + task * plane;
          for (int64_t y = 0; y < g.out_h; ++y) {
            const T* row = in + at.rows[y] * p.in_w;
            for (int64_t x = 0; x < g.out_w; ++x) *to++ = row[at.columns[x]];
          }
        }
      });
}

}  // namespace kernels
}  // namespace paddle_lite
