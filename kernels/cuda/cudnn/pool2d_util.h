// pool2d for the cases cuDNN's pooling cannot express exactly (adaptive
// windows, asymmetric or ceil-mode paddings, windows that reach past the
// end padding): a direct CUDA kernel with the CPU kernel's window and
// divisor rules (kernels/cpu/plain/pool2d.cc). Host declarations only; the
// kernel is in pool2d_util.cu. Private to kernels/cuda/cudnn.
#pragma once

#include <cstdint>

#include "platform/cuda/cuda_error.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

/// A resolved pool2d (operators::Pool2DGeometry plus the pooling mode).
struct Pool2DParams {
  bool channel_last = false;
  bool adaptive = false;
  bool is_max = false;
  /// avg: divide by the elements inside the input, not the window size
  /// (already true for adaptive pooling).
  bool exclusive = true;
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
  int64_t pad_top = 0;
  int64_t pad_left = 0;
};

/// Queues out = pool2d(in) on `stream` (one thread per output element).
void LaunchPool2D(cudaStream_t stream,
                  const Pool2DParams& params,
                  const float* in,
                  float* out);

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite
