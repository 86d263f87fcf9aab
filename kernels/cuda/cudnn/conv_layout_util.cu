// The window-shift kernel of conv_layout_util.h.
#include "kernels/cuda/cuda_helper.h"
#include "kernels/cuda/cudnn/conv_layout_util.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {
namespace {

__global__ void ShiftWindow2DKernel(const float* src,
                                    Spatial4D src_shape,
                                    float* dst,
                                    Spatial4D dst_shape,
                                    int64_t offset_h,
                                    int64_t offset_w,
                                    int64_t n) {
  const int64_t c = dst_shape.channels;
  const int64_t dh = dst_shape.h;
  const int64_t dw = dst_shape.w;
  const int64_t sh = src_shape.h;
  const int64_t sw = src_shape.w;
  PDLITE_CUDA_KERNEL_LOOP(i, n) {
    int64_t x, y, ch, b;
    if (dst_shape.channel_last) {
      ch = i % c;
      x = (i / c) % dw;
      y = (i / (c * dw)) % dh;
      b = i / (c * dw * dh);
    } else {
      x = i % dw;
      y = (i / dw) % dh;
      ch = (i / (dw * dh)) % c;
      b = i / (dw * dh * c);
    }
    const int64_t sy = y + offset_h;
    const int64_t sx = x + offset_w;
    float v = 0.0f;
    if (sy >= 0 && sy < sh && sx >= 0 && sx < sw) {
      const int64_t s = src_shape.channel_last
                            ? ((b * sh + sy) * sw + sx) * c + ch
                            : ((b * c + ch) * sh + sy) * sw + sx;
      v = src[s];
    }
    dst[i] = v;
  }
}

}  // namespace

void LaunchShiftWindow2D(cudaStream_t stream,
                         const float* src,
                         const Spatial4D& src_shape,
                         float* dst,
                         const Spatial4D& dst_shape,
                         int64_t offset_h,
                         int64_t offset_w) {
  const int64_t n = dst_shape.numel();
  if (n <= 0) return;
  ShiftWindow2DKernel<<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
      src, src_shape, dst, dst_shape, offset_h, offset_w, n);
  PDLITE_CUDA_LAUNCH_CHECK();
}

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite
