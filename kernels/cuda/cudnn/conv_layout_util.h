// Device-side reshaping that lets cuDNN run convolutions it cannot express
// directly: the CUDA kernels behind conv_util.cc. Host declarations only;
// the kernels are in conv_layout_util.cu. Private to kernels/cuda/cudnn.
#pragma once

#include <cstdint>

#include "platform/cuda/cuda_error.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

/// The spatial sizes of a 4-D activation tensor [N, C, H, W] (or
/// [N, H, W, C] when channel_last).
struct Spatial4D {
  int64_t batch = 0;
  int64_t channels = 0;
  int64_t h = 0;
  int64_t w = 0;
  bool channel_last = false;

  int64_t numel() const { return batch * channels * h * w; }
};

/// dst[n, c, y, x] = src[n, c, y + offset_h, x + offset_w], or 0 where that
/// lies outside src. src and dst share batch and channels; their H, W and
/// layouts may differ. With negative offsets this pads (the convolution of
/// asymmetric paddings), with positive ones it crops (the transpose
/// convolution's paddings); with different layouts it also converts
/// between NHWC and NCHW (cuDNN convolves NCHW).
void LaunchShiftWindow2D(cudaStream_t stream,
                         const float* src,
                         const Spatial4D& src_shape,
                         float* dst,
                         const Spatial4D& dst_shape,
                         int64_t offset_h,
                         int64_t offset_w);

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite
