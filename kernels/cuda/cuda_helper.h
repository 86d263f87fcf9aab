// What CUDA kernels of kernels/cuda/{plain,cudnn} share: launch shapes, a
// grid-stride loop, and typed access to tensors on the kernel's place.
// Private to the CUDA place (libpaddle_lite_cuda.so).
#pragma once

#include <algorithm>
#include <cstdint>

#include "framework/kernel_registry.h"
#include "framework/tensor.h"
#include "platform/cuda/cuda_device_context.h"
#include "platform/cuda/cuda_error.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

using platform::CUDADeviceContext;

constexpr int kThreadsPerBlock = 256;

/// Blocks for a grid-stride loop over n elements: enough to fill the
/// device, never more than needed (and at least 1).
inline unsigned int BlocksFor(int64_t n, int threads = kThreadsPerBlock) {
  int64_t blocks = (n + threads - 1) / threads;
  return static_cast<unsigned int>(
      std::max<int64_t>(1, std::min<int64_t>(blocks, 65535 * 4)));
}

/// The context a CUDA kernel runs with.
inline const CUDADeviceContext& DeviceContextOf(
    const framework::ExecutionContext& ctx) {
  return ctx.device_context<CUDADeviceContext>();
}

/// Allocates `out` (already resized by shape inference) on the kernel's
/// device and returns its data.
template <typename T>
T* AllocateOutput(const framework::ExecutionContext& ctx,
                  framework::Tensor* out) {
  return out->mutable_data<T>(ctx.GetPlace());
}

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

#ifdef __CUDACC__
/// for (i in [0, n)) spread over the grid, 64-bit safe.
#define PDLITE_CUDA_KERNEL_LOOP(i, n)                                   \
  for (int64_t i =                                                      \
           static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; \
       i < (n); i += static_cast<int64_t>(blockDim.x) * gridDim.x)
#endif
