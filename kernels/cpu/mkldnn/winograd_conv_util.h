// A 3x3 convolution (stride and dilation 1, one group) on channel-last
// activations, computed as Winograd's F(4x4, 3x3) by our own AVX2 or
// AVX-512 loops: each 6x6 input tile is transformed (B^T d B), multiplied
// by the transformed filter (G g G^T) position by position (36 matrix
// products over the channels, run by the 1x1 convolution's loops), and
// transformed back into a 4x4 output tile (A^T m A). That is 4 times fewer
// multiply-adds than the direct convolution, whose 3x3 layers are half of a
// text detector's time on a CPU without AVX-512 (where oneDNN 2.7 has no
// Winograd). Nothing is made per input size. Private to kernels/cpu/mkldnn
// (conv_kernel.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "operators/fused_activation.h"

namespace paddle_lite {
namespace platform {
class CPUDeviceContext;
}
namespace kernels {
namespace mkldnn {

/// Floats of a 3x3 filter [out_channels, in_channels, 3, 3] transformed
/// and packed for the loops: 36 matrices, one per tile position, each
/// packed as PackPointwiseFilter packs a 1x1 filter.
int64_t PackedWinogradFilterSize(int64_t in_channels, int64_t out_channels);

/// Transforms `filter` (Paddle's oihw, 3x3 windows) into `packed`
/// (PackedWinogradFilterSize floats), in double precision.
void PackWinogradFilter(const float* filter,
                        int64_t in_channels,
                        int64_t out_channels,
                        float* packed);

/// A group of channels of a WinogradConv's input read from a map of its
/// own through a nearest index (fused_upsample_concat_conv2d): channels
/// [channel_offset, channel_offset + channels) of input pixel (y, x) of
/// image n are at in + ((n * in_h + rows[y]) * in_w + columns[x]) *
/// channels.
struct WinogradInputPart {
  const float* in = nullptr;  // channel-last [batch][in_h][in_w][channels]
  int64_t in_h = 0;
  int64_t in_w = 0;
  int64_t channels = 0;
  int64_t channel_offset = 0;
  const int64_t* rows = nullptr;     // one per row of the call's input
  const int64_t* columns = nullptr;  // one per column of the call's input
};

/// One call of RunWinogradConv.
struct WinogradConv {
  /// A row of in_stride floats per pixel, its in_channels first.
  const float* in = nullptr;
  int64_t in_stride = 0;
  /// When not null, the input is these part_count groups of channels
  /// instead (together in_channels, in order), and `in` is not read: a
  /// join of upsampled maps that is never stored.
  const WinogradInputPart* parts = nullptr;
  int64_t part_count = 0;
  const float* packed_filter = nullptr;  // PackWinogradFilter's
  const float* bias = nullptr;           // out_channels; null: none
  float* out = nullptr;                  // rows of out_channels per pixel
  int64_t batch = 0;
  int64_t in_h = 0;
  int64_t in_w = 0;
  /// Any output size: taps outside the input read zeros.
  int64_t out_h = 0;
  int64_t out_w = 0;
  int64_t pad_top = 0;
  int64_t pad_left = 0;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  operators::FusedActivation activation;
};

/// Bytes of scratch RunWinogradConv needs for `conv` on up to `threads`
/// threads (its transformed tiles, a few hundred KB a thread).
size_t WinogradScratchBytes(const WinogradConv& conv, int threads);

/// out[n][y][x][o] = act(bias[o] + sum_{i,ky,kx} in[n][y - pad_top + ky]
/// [x - pad_left + kx][i] * filter[o][i][ky][kx]), split across the
/// context's threads; `scratch` holds WinogradScratchBytes(conv,
/// dev.num_threads()) bytes, 64-byte aligned.
void RunWinogradConv(const platform::CPUDeviceContext& dev,
                     const WinogradConv& conv,
                     void* scratch);

/// True where the conv kernels run 3x3 convolutions on RunWinogradConv:
/// wherever our loops run (AVX2 and AVX-512). On AVX2 they were measured
/// 3x faster than oneDNN's direct kernels; on AVX-512 against oneDNN's
/// Winograd they make nothing per input size, need no reorder of their
/// input and output, and ran the detectors' shape streams 5-20% faster
/// with 50 MB less RSS. PDLITE_OWN_WINOGRAD=0 turns them off.
bool OwnWinogradPreferred();

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
