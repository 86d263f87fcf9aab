// Out[j] = In[sum_k j_k * stride_k]: the gather behind slice (a sub-block,
// strides of the input) and transpose2 (permuted strides) on the CUDA
// place. Dims are coalesced first, so a slice of whole rows or a transpose
// that keeps the innermost dim copies contiguous runs, and a transpose of
// the two innermost (merged) dims goes through shared-memory tiles so
// both its reads and its writes are coalesced. Kernels move words of the
// element's size, so element types of one size share one kernel. Private
// to kernels/cuda/plain.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_helper.h"
#include "kernels/cuda/plain/copy_rows_util.cuh"

namespace paddle_lite {
namespace kernels {
namespace cuda {

/// Paddle's rank limit; coalescing never raises the rank.
constexpr int kMaxCopyRank = 9;

/// Output dims (innermost last) and the input stride of each, in
/// elements.
struct StridedView {
  int rank = 0;  ///< 0: a single element
  int64_t size[kMaxCopyRank] = {};
  int64_t stride[kMaxCopyRank] = {};
};

/// Drops dims of size 1 and merges a dim into the next inner one when
/// the input walks both as one run.
inline StridedView CoalesceView(const std::vector<int64_t>& sizes,
                                const std::vector<int64_t>& strides,
                                const std::string& op) {
  std::vector<int64_t> size;
  std::vector<int64_t> stride;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 1) continue;
    if (!size.empty() && stride.back() == strides[i] * sizes[i]) {
      size.back() *= sizes[i];
      stride.back() = strides[i];
    } else {
      size.push_back(sizes[i]);
      stride.push_back(strides[i]);
    }
  }
  PADDLE_ENFORCE(
      static_cast<int>(size.size()) <= kMaxCopyRank,
      errors::Unimplemented(op, ": the CUDA kernel handles at most ",
                            kMaxCopyRank, " dims, got ", sizes, "."));
  StridedView v;
  v.rank = static_cast<int>(size.size());
  std::copy(size.begin(), size.end(), v.size);
  std::copy(stride.begin(), stride.end(), v.stride);
  return v;
}

/// Offset in the input of output row `row` (dims 0..rank-2).
__device__ inline int64_t StridedRowOffset(const StridedView& v, int64_t row) {
  int64_t offset = 0;
  // Fixed trip count so the dims are indexed by constants.
#pragma unroll
  for (int k = kMaxCopyRank - 2; k >= 0; --k) {
    if (k < v.rank - 1) {
      offset += (row % v.size[k]) * v.stride[k];
      row /= v.size[k];
    }
  }
  return offset;
}

/// Innermost dim contiguous in the input: blockIdx.y walks the rows,
/// x-threads copy a row.
template <typename W>
__global__ void StridedRowKernel(const W* in,
                                 W* out,
                                 StridedView v,
                                 int64_t rows) {
  const int64_t inner = v.size[v.rank - 1];
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const W* src = in + StridedRowOffset(v, row);
    W* dst = out + row * inner;
    for (int64_t j =
             static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
         j < inner; j += static_cast<int64_t>(blockDim.x) * gridDim.x) {
      dst[j] = src[j];
    }
  }
}

/// Any view: the input offset of every element is found by division.
template <typename W>
__global__ void StridedIndexKernel(const W* in,
                                   W* out,
                                   StridedView v,
                                   int64_t n) {
  PDLITE_CUDA_KERNEL_LOOP(i, n) {
    const int64_t last = v.rank - 1;
    const int64_t inner = v.size[last];
    out[i] = in[StridedRowOffset(v, i / inner) + (i % inner) * v.stride[last]];
  }
}

constexpr int kTile = 32;
constexpr int kTileRows = 8;

/// out[b][c][r] = in[b][r][c] for in [batch, rows, cols]: a 32x32 tile is
/// read row-wise into shared memory and written out column-wise.
template <typename W>
__global__ void BatchTransposeKernel(
    const W* in, W* out, int64_t batch, int64_t rows, int64_t cols) {
  __shared__ W tile[kTile][kTile + 1];  // +1: no bank conflicts
  const int64_t row_tiles = (rows + kTile - 1) / kTile;
  const int64_t c0 = static_cast<int64_t>(blockIdx.x) * kTile;
  for (int64_t b = blockIdx.z; b < batch; b += gridDim.z) {
    const W* src = in + b * rows * cols;
    W* dst = out + b * rows * cols;
    for (int64_t t = blockIdx.y; t < row_tiles; t += gridDim.y) {
      const int64_t r0 = t * kTile;
      for (int k = threadIdx.y; k < kTile; k += kTileRows) {
        const int64_t r = r0 + k;
        const int64_t c = c0 + threadIdx.x;
        if (r < rows && c < cols) tile[k][threadIdx.x] = src[r * cols + c];
      }
      __syncthreads();
      for (int k = threadIdx.y; k < kTile; k += kTileRows) {
        const int64_t c = c0 + k;
        const int64_t r = r0 + threadIdx.x;
        if (r < rows && c < cols) dst[c * rows + r] = tile[threadIdx.x][k];
      }
      __syncthreads();
    }
  }
}

/// Fills out (Π v.size elements) from `in` through the view, on the
/// stream.
template <typename T>
void CopyStrided(const CUDADeviceContext& dev,
                 const T* in_t,
                 T* out_t,
                 const StridedView& v) {
  using W = WordOf<T>;
  const W* in = reinterpret_cast<const W*>(in_t);
  W* out = reinterpret_cast<W*>(out_t);
  cudaStream_t stream = dev.stream();
  int64_t n = 1;
  for (int k = 0; k < v.rank; ++k) n *= v.size[k];
  if (n == 0) return;
  const int last = v.rank - 1;
  if (v.rank == 0 || (v.rank == 1 && v.stride[0] == 1)) {
    PDLITE_CUDA_CHECK(cudaMemcpyAsync(out, in, n * sizeof(W),
                                      cudaMemcpyDeviceToDevice, stream));
    return;
  }
  // Out [batch, R, C] read from a contiguous In [batch, C, R].
  const bool batch_transpose =
      v.rank >= 2 && v.rank <= 3 && v.stride[last - 1] == 1 &&
      v.stride[last] == v.size[last - 1] &&
      (v.rank == 2 || v.stride[0] == v.size[1] * v.size[2]);
  if (batch_transpose) {
    const int64_t batch = v.rank == 3 ? v.size[0] : 1;
    const int64_t in_rows = v.size[last];      // C
    const int64_t in_cols = v.size[last - 1];  // R
    const dim3 grid(static_cast<unsigned int>((in_cols + kTile - 1) / kTile),
                    static_cast<unsigned int>(std::min<int64_t>(
                        (in_rows + kTile - 1) / kTile, 65535)),
                    static_cast<unsigned int>(std::min<int64_t>(batch, 65535)));
    BatchTransposeKernel<<<grid, dim3(kTile, kTileRows), 0, stream>>>(
        in, out, batch, in_rows, in_cols);
    PDLITE_CUDA_LAUNCH_CHECK();
    return;
  }
  const int64_t inner = v.size[last];
  // Below a warp per row the row kernel idles most of its threads.
  if (v.stride[last] == 1 && inner >= 32) {
    const int64_t rows = n / inner;
    const int threads = static_cast<int>(
        std::min<int64_t>(kThreadsPerBlock, (inner + 31) / 32 * 32));
    const dim3 grid(static_cast<unsigned int>(std::min<int64_t>(
                        (inner + threads - 1) / threads, 65535)),
                    static_cast<unsigned int>(std::min<int64_t>(rows, 65535)));
    StridedRowKernel<<<grid, threads, 0, stream>>>(in, out, v, rows);
    PDLITE_CUDA_LAUNCH_CHECK();
    return;
  }
  StridedIndexKernel<<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(in, out, v,
                                                                    n);
  PDLITE_CUDA_LAUNCH_CHECK();
}

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite
