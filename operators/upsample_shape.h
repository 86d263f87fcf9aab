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
#include "operators/interp_op.h"

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

/// Where each output pixel of a part reads: the source row of each output
/// row and the source column of each output column.
struct NearestIndex {
  std::vector<int64_t> rows;
  std::vector<int64_t> columns;
};

/// The nearest index of one part of a join.
inline NearestIndex NearestIndexOf(const UpsampledPart& part,
                                   const UpsampleConcatGeometry& g) {
  return {NearestSourceIndex(part.in_h, g.out_h, part.scale_h, false),
          NearestSourceIndex(part.in_w, g.out_w, part.scale_w, false)};
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

/// Where each output pixel of fused_upsample_add reads Y.
inline NearestIndex NearestIndexOf(const UpsampleAddGeometry& g) {
  return {NearestSourceIndex(g.in_h, g.out_h, g.scale_h, false),
          NearestSourceIndex(g.in_w, g.out_w, g.scale_w, false)};
}

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
