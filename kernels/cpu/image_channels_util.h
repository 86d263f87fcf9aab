// Loops over images' channels: the squeeze (an average per channel) and
// the scaling (a factor per channel) of a squeeze-and-excitation block.
// MKLDNN kernels run them instead of a oneDNN primitive, which would be
// made per input size for little work; PLAIN kernels, as their fast path.
// Compiled for AVX-512, AVX2 and the baseline, they run the widest the CPU
// has (platform/cpu_isa.h), split across the context's threads when large.
// Shared by the CPU kernels of every library.
#pragma once

#include <cstdint>

namespace paddle_lite {
namespace platform {
class CPUDeviceContext;
}  // namespace platform

namespace kernels {

/// `images` images of `pixels` pixels of `channels` float channels, dense,
/// stored channel-last ([N, H, W, C]) or channel-first ([N, C, H, W]).
struct ImageChannels {
  int64_t images = 0;
  int64_t channels = 0;
  int64_t pixels = 0;
  bool channel_last = false;
};

/// out[n * C + c] = the mean of channel c of image n of `src`.
void AverageImages(const platform::CPUDeviceContext& dev,
                   const ImageChannels& shape,
                   const float* src,
                   float* out);

/// out = src with each channel multiplied by its factor: factors[n * C + c]
/// for image n when `per_image`, else factors[c] for every image. `out` may
/// be `src` (in place), not otherwise overlap it.
void ScaleChannels(const platform::CPUDeviceContext& dev,
                   const ImageChannels& shape,
                   bool per_image,
                   const float* src,
                   const float* factors,
                   float* out);

}  // namespace kernels
}  // namespace paddle_lite
