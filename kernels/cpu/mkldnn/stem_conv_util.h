// A convolution of a few input channels (a network's stem: an image's 3
// channels) into at most 16, read from channel-first planes and written
// channel-last, computed by our own AVX-512 or AVX2 loops instead of a oneDNN
// primitive. Its code does not depend on the input's height and width: a
// new input size costs nothing to make, where oneDNN makes a primitive
// (0.13-0.45 ms, the largest part of what a new width of the OCR
// classifier still made once its 1x1 and depthwise layers ran on our own
// loops) for every size. Private to kernels/cpu/mkldnn (conv_kernel.h).
#pragma once

#include <cstdint>

#include "operators/fused_activation.h"

namespace paddle_lite {
namespace platform {
class CPUDeviceContext;
}
namespace kernels {
namespace mkldnn {

/// The most input and output channels the loops take.
constexpr int64_t kStemMaxInChannels = 4;
constexpr int64_t kStemMaxOutChannels = 16;

/// Floats of a filter packed for the loops: one vector of 16 output
/// channels (zeros past out_channels) per tap, taps in the order
/// [in_channels][kernel_h][kernel_w].
int64_t PackedStemFilterSize(int64_t in_channels,
                             int64_t kernel_h,
                             int64_t kernel_w);

/// Packs `filter` (Paddle's oihw, [out_channels, in_channels, kernel_h,
/// kernel_w]) into `packed` (PackedStemFilterSize floats).
void PackStemFilter(const float* filter,
                    int64_t out_channels,
                    int64_t in_channels,
                    int64_t kernel_h,
                    int64_t kernel_w,
                    float* packed);

/// One call of RunStemConv.
struct StemConv {
  const float* in = nullptr;             // [batch][in_channels][in_h][in_w]
  const float* packed_filter = nullptr;  // PackStemFilter's
  const float* bias = nullptr;           // out_channels; null: none
  float* out = nullptr;                  // [batch][out_h][out_w][out_channels]
  int64_t batch = 0;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t in_h = 0;
  int64_t in_w = 0;
  int64_t out_h = 0;
  int64_t out_w = 0;
  int64_t kernel_h = 0;
  int64_t kernel_w = 0;
  int64_t stride_h = 1;
  int64_t stride_w = 1;
  int64_t pad_top = 0;  // taps outside the input read zeros
  int64_t pad_left = 0;
  operators::FusedActivation activation;
};

/// out[n][y][x][o] = act(bias[o] + sum over c and the window of
/// in[n][c][y * stride_h - pad_top + i][x * stride_w - pad_left + j] *
/// filter[o][c][i][j]), split by output rows across the context's
/// threads. Needs OwnConvLoopsAvailable() (AVX-512 or AVX2), in_channels <=
/// kStemMaxInChannels and out_channels <= kStemMaxOutChannels.
void RunStemConv(const platform::CPUDeviceContext& dev, const StemConv& conv);

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
