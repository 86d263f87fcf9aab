// A depthwise convolution (one filter per channel, multiplier 1, no
// dilation) on channel-last activations, computed by our own AVX-512 or AVX2
// loops instead of a oneDNN primitive. Vectorized over channels, its code
// does not depend on the input's height and width: a new input size costs
// nothing to make, where oneDNN makes a primitive (0.1-0.3 ms each, the
// largest part of what a detector's new shape still made once its 1x1
// layers ran on pointwise_conv_util.h) for every size. Private to
// kernels/cpu/mkldnn (conv_kernel.h).
#pragma once

#include <cstdint>

#include "operators/fused_activation.h"

namespace paddle_lite {
namespace platform {
class CPUDeviceContext;
}
namespace kernels {
namespace mkldnn {

/// Floats of a filter of `channels` windows kernel_h x kernel_w packed
/// for the loops: [kernel_h * kernel_w][channels rounded up to 16].
int64_t PackedDepthwiseFilterSize(int64_t channels,
                                  int64_t kernel_h,
                                  int64_t kernel_w);

/// Packs `filter` (Paddle's [channels, 1, kernel_h, kernel_w]) into
/// `packed` (PackedDepthwiseFilterSize floats; zeros past `channels`).
void PackDepthwiseFilter(const float* filter,
                         int64_t channels,
                         int64_t kernel_h,
                         int64_t kernel_w,
                         float* packed);

/// One call of RunDepthwiseConv.
struct DepthwiseConv {
  /// [batch][in_h][in_w] rows of in_stride floats, `channels` first (a
  /// channel-last input, or up to 16 channels blocked by 16).
  const float* in = nullptr;
  int64_t in_stride = 0;
  const float* packed_filter = nullptr;  // PackDepthwiseFilter's
  const float* bias = nullptr;           // channels; null: none
  float* out = nullptr;                  // [batch][out_h][out_w][channels]
  int64_t batch = 0;
  int64_t channels = 0;
  int64_t in_h = 0;
  int64_t in_w = 0;
  int64_t out_h = 0;
  int64_t out_w = 0;
  int64_t kernel_h = 0;
  int64_t kernel_w = 0;
  int64_t stride_h = 1;
  int64_t stride_w = 1;
  int64_t pad_top = 0;   // taps above or left of the input read zeros,
  int64_t pad_left = 0;  // as do those past its bottom or right
  operators::FusedActivation activation;
};

/// out[n][y][x][c] = act(bias[c] + sum over the window of
/// in[n][y * stride_h - pad_top + i][x * stride_w - pad_left + j][c] *
/// filter[c][i][j]), split by output rows across the context's threads.
/// Needs OwnConvLoopsAvailable() (AVX-512 or AVX2).
void RunDepthwiseConv(const platform::CPUDeviceContext& dev,
                      const DepthwiseConv& conv);

/// Runs output rows [begin, end) (row = n * out_h + y) of a call on the
/// calling thread: for loops that run depthwise rows inside their own
/// tasks (fused_inverted_residual's, which feed them a few rows at a time).
using DepthwiseRowsFn = void (*)(const DepthwiseConv&, int64_t, int64_t);

/// The rows function for calls with `activation` on this CPU.
DepthwiseRowsFn DepthwiseRowsFor(const operators::FusedActivation& activation);

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
