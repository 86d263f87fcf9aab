// A strided 2-D copy between device buffers, the whole of concat and
// split on the CUDA place. Private to kernels/cuda/plain.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/cuda/cuda_helper.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

/// The unsigned integer of T's size: copies move words, so every element
/// type of one size shares one kernel.
template <size_t kBytes>
struct WordOfSize;
template <>
struct WordOfSize<1> {
  using type = uint8_t;
};
template <>
struct WordOfSize<2> {
  using type = uint16_t;
};
template <>
struct WordOfSize<4> {
  using type = uint32_t;
};
template <>
struct WordOfSize<8> {
  using type = uint64_t;
};
template <typename T>
using WordOf = typename WordOfSize<sizeof(T)>::type;

template <typename W>
__global__ void CopyRowsKernel(const W* src,
                               int64_t src_stride,
                               W* dst,
                               int64_t dst_stride,
                               int64_t width,
                               int64_t n) {
  PDLITE_CUDA_KERNEL_LOOP(i, n) {
    const int64_t r = i / width;
    const int64_t c = i - r * width;
    dst[r * dst_stride + c] = src[r * src_stride + c];
  }
}

/// Copies `rows` rows of `width` elements from `src` (rows `src_stride`
/// elements apart) to `dst` (rows `dst_stride` apart) on the stream.
template <typename T>
void CopyRows(const CUDADeviceContext& dev,
              const T* src,
              int64_t src_stride,
              T* dst,
              int64_t dst_stride,
              int64_t width,
              int64_t rows) {
  if (rows == 0 || width == 0) return;
  if (rows == 1 || (width == src_stride && width == dst_stride)) {
    // Contiguous: one plain copy.
    PDLITE_CUDA_CHECK(cudaMemcpyAsync(dst, src, rows * width * sizeof(T),
                                      cudaMemcpyDeviceToDevice, dev.stream()));
    return;
  }
  // The copy engines move long rows well but short ones one by one.
  constexpr int64_t kMinEngineRowBytes = 1024;
  if (width * static_cast<int64_t>(sizeof(T)) >= kMinEngineRowBytes) {
    PDLITE_CUDA_CHECK(cudaMemcpy2DAsync(
        dst, dst_stride * sizeof(T), src, src_stride * sizeof(T),
        width * sizeof(T), rows, cudaMemcpyDeviceToDevice, dev.stream()));
    return;
  }
  using W = WordOf<T>;
  const int64_t n = rows * width;
  CopyRowsKernel<<<BlocksFor(n), kThreadsPerBlock, 0, dev.stream()>>>(
      reinterpret_cast<const W*>(src), src_stride, reinterpret_cast<W*>(dst),
      dst_stride, width, n);
  PDLITE_CUDA_LAUNCH_CHECK();
}

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite
