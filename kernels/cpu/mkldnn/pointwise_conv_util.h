// A 1x1 convolution (stride 1, no padding, one group) on channel-last
// activations, computed by our own AVX-512 or AVX2 loops instead of a oneDNN
// primitive. On channel-last data it is a matrix product,
// out[pixel][o] = act(bias[o] + sum_i in[pixel][i] * filter[o][i]
// (+ residual[pixel][o])), whose code does not depend on the number of
// pixels: a new input size costs nothing to make, where oneDNN makes a
// primitive (0.25-0.7 ms each, most of a detector's new-shape cost) for
// every size. Private to kernels/cpu/mkldnn (conv_kernel.h).
#pragma once

#include <cstdint>

#include "operators/fused_activation.h"

namespace paddle_lite {
namespace operators {
struct Conv2DGeometry;
}
namespace platform {
class CPUDeviceContext;
}
namespace kernels {
namespace mkldnn {

/// True for the convolutions the loops compute: 1x1 windows, stride 1,
/// no padding, one group.
bool PointwiseGeometry(const operators::Conv2DGeometry& g);

/// Floats of a filter [out_channels, in_channels] packed for the loops:
/// panels of up to 64 output channels, each [in_channels][width] with the
/// last panel's width rounded up to 16 (zeros past out_channels).
int64_t PackedPointwiseFilterSize(int64_t in_channels, int64_t out_channels);

/// Packs `filter` ([out_channels, in_channels], Paddle's oihw with 1x1
/// windows) into `packed` (PackedPointwiseFilterSize floats).
void PackPointwiseFilter(const float* filter,
                         int64_t in_channels,
                         int64_t out_channels,
                         float* packed);

/// One call of RunPointwiseConv.
struct PointwiseConv {
  /// A row of in_stride floats per pixel, its in_channels first (a
  /// channel-last input, or channels blocked by 16 with at most 16).
  const float* in = nullptr;
  int64_t in_stride = 0;
  const float* packed_filter = nullptr;  // PackPointwiseFilter's
  const float* bias = nullptr;           // out_channels; null: none
  /// Added before the activation, rows of residual_stride floats laid out
  /// as `in`'s; null: none. May be `out` itself.
  const float* residual = nullptr;
  int64_t residual_stride = 0;
  float* out = nullptr;  // rows of out_channels
  int64_t pixels = 0;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  operators::FusedActivation activation;
};

/// out[p][o] = act(bias[o] + sum_i in[p][i] * filter[o][i] + residual[p][o])
/// for p < pixels, o < out_channels, split across the context's threads.
void RunPointwiseConv(const platform::CPUDeviceContext& dev,
                      const PointwiseConv& conv);

/// Runs rows [begin, end) of a call on the calling thread: for loops that
/// run matrix products of their own inside their tasks (Winograd's, in
/// winograd_conv_util.cc).
using PointwiseRowsFn = void (*)(const PointwiseConv&, int64_t, int64_t);

/// The rows function for calls with `activation` on this CPU.
PointwiseRowsFn PointwiseRowsFor(const operators::FusedActivation& activation);

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
