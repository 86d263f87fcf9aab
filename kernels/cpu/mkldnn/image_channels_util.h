// Loops over images' channels that some MKLDNN kernels run instead of a
// oneDNN primitive, where a primitive would be made per input size for
// little work: the squeeze (an average per channel) and the scaling (a
// factor per channel) of a squeeze-and-excitation block. Compiled for
// AVX-512, AVX2 and the baseline, they run the widest the CPU has (the
// default build targets the baseline ISA), split across the context's
// threads when large. Private to kernels/cpu/mkldnn.
#pragma once

#include <cstdint>

namespace paddle_lite {
namespace platform {
class CPUDeviceContext;
}  // namespace platform

namespace kernels {
namespace mkldnn {

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

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
