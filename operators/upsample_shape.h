// The geometry of the ops that read a map through nearest_interp_v2's
// index instead of storing it upsampled, fused_upsample_concat and
// fused_upsample_add (operators/fused_upsample_*.cc), shared by their
// shape inference and kernels.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "framework/ddim.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace operators {

/// One input of the join.
struct UpsampledPart {
  size_t input = 0;  ///< index in X
  int64_t channels = 0;
  int64_t in_h = 0;
  int64_t in_w = 0;
  float scale_h = 1.f;
  float scale_w = 1.f;
  int64_t channel_offset = 0;  ///< first channel of Out it fills
};

struct UpsampleConcatGeometry {
  int64_t batch = 0;
  int64_t channels = 0;  ///< of Out: every part's, summed
  int64_t out_h = 0;
  int64_t out_w = 0;
  /// The inputs that take part: those with elements (like concat, an
  /// empty input is skipped), or all of them when every one is empty.
  std::vector<UpsampledPart> parts;

  framework::DDim OutputDims() const { return {batch, channels, out_h, out_w}; }
};

/// Paddle's nearest_interp_v2 output size of an axis of `in` pixels under
/// a scale attribute (a float product, truncated). Throws InvalidArgument
/// naming `op` and `input` when the product is past any real size (or
/// NaN), where the conversion would be undefined.
inline int64_t UpsampledSize(const std::string& op,
                             const std::string& input,
                             int64_t in,
                             float scale) {
  const float size = static_cast<float>(in) * scale;
  PADDLE_ENFORCE(size < 2147483648.f,
                 errors::InvalidArgument(
                     op, ": scale ", scale, " of ", input, "'s dim ", in,
                     " gives an upsampled size of ", size, ", over 2^31"));
  return static_cast<int64_t>(size);
}

/// The source pixel of output pixel `o` of an axis upsampled from `in` to
/// `out` pixels by `scale`, as nearest_interp_v2 picks it without
/// align_corners: the float product of 1 / scale and o, truncated (clamped
/// to the last pixel, as our interp kernels do).
inline std::vector<int64_t> NearestSources(int64_t in,
                                           int64_t out,
                                           float scale) {
  const float ratio = out <= 1 ? 0.f : static_cast<float>(1.0 / scale);
  std::vector<int64_t> source(static_cast<size_t>(std::max<int64_t>(out, 0)));
  for (int64_t o = 0; o < out; ++o) {
    source[o] =
        std::min(static_cast<int64_t>(ratio * static_cast<float>(o)), in - 1);
  }
  return source;
}

/// Where each output pixel of a part reads: the source row of each output
/// row and the source column of each output column.
struct NearestIndex {
  std::vector<int64_t> rows;
  std::vector<int64_t> columns;
};

/// The nearest index of one part of a join.
inline NearestIndex NearestIndexOf(const UpsampledPart& part,
                                   const UpsampleConcatGeometry& g) {
  return {NearestSources(part.in_h, g.out_h, part.scale_h),
          NearestSources(part.in_w, g.out_w, part.scale_w)};
}

/// Works out the join of inputs of `dims` upsampled by `scale_h` and
/// `scale_w` (one per input). Throws InvalidArgument naming `op` and the
/// input when an input is not 4-D, a scale is not positive, an upsampled
/// input has no pixels, or the inputs disagree in batch or upsampled size.
UpsampleConcatGeometry ResolveUpsampleConcat(
    const std::string& op,
    const std::vector<framework::DDim>& dims,
    const std::vector<float>& scale_h,
    const std::vector<float>& scale_w);

/// fused_upsample_add's operands: Out = X * XScale + Y upsampled.
struct UpsampleAddGeometry {
  int64_t batch = 0;
  int64_t channels = 0;
  int64_t out_h = 0;  ///< X's height and width, and Out's
  int64_t out_w = 0;
  int64_t in_h = 0;  ///< Y's
  int64_t in_w = 0;
  float scale_h = 1.f;
  float scale_w = 1.f;
  /// XScale's: 0 when there is none, else 1 (one row of channels for
  /// every image) or batch.
  int64_t x_scale_images = 0;
};

/// Works out fused_upsample_add for X, Y and XScale (empty dims: none) of
/// `x`, `y` and `x_scale`. Throws InvalidArgument naming `op` unless X and
/// Y are 4-D with the same batch and channels, Y upsampled by the scales
/// is X's size, and XScale is [1 or N, C, 1, 1].
UpsampleAddGeometry ResolveUpsampleAdd(const std::string& op,
                                       const framework::DDim& x,
                                       const framework::DDim& y,
                                       const framework::DDim& x_scale,
                                       float scale_h,
                                       float scale_w);

}  // namespace operators
}  // namespace paddle_lite
