// The direct pool2d kernel of pool2d_util.h.
#include <cfloat>

#include "kernels/cuda/cuda_helper.h"
#include "kernels/cuda/cudnn/pool2d_util.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {
namespace {

/// The input range [*begin, *end) of output index o along one dim and the
/// divisor part of average pooling, exactly as MakeWindows of the CPU
/// kernel computes them (the far bound is in + pad_begin, and without
/// `exclusive` the size is taken before clipping to the input).
__device__ __forceinline__ void Window(int64_t o,
                                       int64_t in,
                                       int64_t out,
                                       int64_t kernel,
                                       int64_t stride,
                                       int64_t pad_begin,
                                       bool adaptive,
                                       bool exclusive,
                                       int64_t* begin,
                                       int64_t* end,
                                       int64_t* size) {
  int64_t b, e, s;
  if (adaptive) {
    b = o * in / out;
    e = ((o + 1) * in + out - 1) / out;
    s = e - b;
  } else {
    b = o * stride - pad_begin;
    e = min(b + kernel, in + pad_begin);
    s = e - b;
    b = max(b, int64_t{0});
    e = min(e, in);
    if (exclusive) s = e - b;
  }
  *begin = b;
  *end = max(e, b);
  *size = s;
}

__global__ void Pool2DKernel(Pool2DParams p,
                             const float* in,
                             float* out,
                             int64_t n) {
  PDLITE_CUDA_KERNEL_LOOP(i, n) {
    int64_t ow, oh, c, b;
    if (p.channel_last) {
      c = i % p.channels;
      ow = (i / p.channels) % p.out_w;
      oh = (i / (p.channels * p.out_w)) % p.out_h;
      b = i / (p.channels * p.out_w * p.out_h);
    } else {
      ow = i % p.out_w;
      oh = (i / p.out_w) % p.out_h;
      c = (i / (p.out_w * p.out_h)) % p.channels;
      b = i / (p.out_w * p.out_h * p.channels);
    }
    int64_t hb, he, hs, wb, we, ws;
    Window(oh, p.in_h, p.out_h, p.kernel_h, p.stride_h, p.pad_top, p.adaptive,
           p.exclusive, &hb, &he, &hs);
    Window(ow, p.in_w, p.out_w, p.kernel_w, p.stride_w, p.pad_left, p.adaptive,
           p.exclusive, &wb, &we, &ws);
    // Element (h, w) of this (image, channel) is at base + h * row + w * col.
    int64_t base, row, col;
    if (p.channel_last) {
      base = b * p.in_h * p.in_w * p.channels + c;
      col = p.channels;
      row = p.in_w * p.channels;
    } else {
      base = (b * p.channels + c) * p.in_h * p.in_w;
      col = 1;
      row = p.in_w;
    }
    float acc = p.is_max ? -FLT_MAX : 0.0f;
    // No input column: no row to walk (a hostile [1, 1, 2^40, 0] would
    // have each thread step through 2^40 empty rows).
    if (we <= wb) he = hb;
    for (int64_t h = hb; h < he; ++h) {
      const float* src = in + base + h * row;
      for (int64_t w = wb; w < we; ++w) {
        const float x = src[w * col];
        // The CPU kernel's comparison, kept for its NaN behaviour.
        acc = p.is_max ? (acc > x ? acc : x) : acc + x;
      }
    }
    out[i] = p.is_max ? acc : acc / static_cast<float>(hs * ws);
  }
}

}  // namespace

void LaunchPool2D(cudaStream_t stream,
                  const Pool2DParams& params,
                  const float* in,
                  float* out) {
  const int64_t n =
      params.batch * params.channels * params.out_h * params.out_w;
  if (n <= 0) return;
  Pool2DKernel<<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(params, in, out,
                                                              n);
  PDLITE_CUDA_LAUNCH_CHECK();
}

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite
