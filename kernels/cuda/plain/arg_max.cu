// arg_max on the CUDA place (spec §13): X viewed as [outer, n, inner], n
// the reduced axis (all of X with flatten). The result is the CPU
// kernel's: the first index of the largest value, where NaNs never win
// (an all-NaN row gives 0).
#include <algorithm>
#include <cstdint>

#include "kernels/cuda/cuda_helper.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

namespace {

/// One thread per (outer, inner) pair, scanning the axis as the CPU does;
/// neighbouring threads read neighbouring values.
template <typename T, typename IndexT>
__global__ void ArgMaxStridedKernel(
    const T* x, IndexT* out, int64_t outer, int64_t n, int64_t inner) {
  PDLITE_CUDA_KERNEL_LOOP(i, outer * inner) {
    const int64_t b = i / inner;
    const int64_t j = i - b * inner;
    const T* src = x + b * n * inner + j;
    T best = src[0];
    int64_t index = 0;
    for (int64_t k = 1; k < n; ++k) {
      const T v = src[k * inner];
      if (v > best || (best != best && v == v)) {
        best = v;
        index = k;
      }
    }
    out[i] = static_cast<IndexT>(index);
  }
}

constexpr int kArgMaxThreads = 256;

/// One block per row of a long contiguous axis (inner == 1). Each thread
/// keeps the first index of the largest non-NaN value it saw (-1: none);
/// the block then merges, preferring the larger value, then the smaller
/// index: the CPU scan's answer.
template <typename T, typename IndexT>
__global__ void ArgMaxRowKernel(const T* x,
                                IndexT* out,
                                int64_t outer,
                                int64_t n) {
  __shared__ T best_value[kArgMaxThreads];
  __shared__ int64_t best_index[kArgMaxThreads];
  for (int64_t row = blockIdx.x; row < outer; row += gridDim.x) {
    const T* src = x + row * n;
    T best = T(0);
    int64_t index = -1;
    for (int64_t k = threadIdx.x; k < n; k += blockDim.x) {
      const T v = src[k];
      if (v != v) continue;  // NaN
      if (index < 0 || v > best) {
        best = v;
        index = k;
      }
    }
    best_value[threadIdx.x] = best;
    best_index[threadIdx.x] = index;
    __syncthreads();
    for (int step = blockDim.x / 2; step > 0; step /= 2) {
      if (threadIdx.x < step) {
        const T v = best_value[threadIdx.x + step];
        const int64_t k = best_index[threadIdx.x + step];
        const int64_t mine = best_index[threadIdx.x];
        if (k >= 0 && (mine < 0 || v > best_value[threadIdx.x] ||
                       (v == best_value[threadIdx.x] && k < mine))) {
          best_value[threadIdx.x] = v;
          best_index[threadIdx.x] = k;
        }
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      out[row] = static_cast<IndexT>(best_index[0] < 0 ? 0 : best_index[0]);
    }
    __syncthreads();  // the shared arrays are reused by the next row
  }
}

}  // namespace

template <typename T>
class ArgMaxCUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    if (ctx.Attr<int>("dtype") == 2) {
      Run<int32_t>(ctx);
    } else {
      Run<int64_t>(ctx);
    }
  }

 private:
  template <typename IndexT>
  static void Run(const framework::ExecutionContext& ctx) {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    IndexT* o = AllocateOutput<IndexT>(ctx, out);
    if (out->numel() == 0) return;
    const auto& dims = x->dims();
    const int rank = static_cast<int>(dims.size());
    int64_t outer = 1, n = x->numel(), inner = 1;
    if (!ctx.Attr<bool>("flatten") && rank > 0) {
      int64_t axis = ctx.Attr<int64_t>("axis");
      if (axis < 0) axis += rank;
      outer = framework::Product(dims, 0, static_cast<int>(axis));
      n = dims[axis];
      inner = framework::Product(dims, static_cast<int>(axis) + 1, rank);
    }
    cudaStream_t stream = DeviceContextOf(ctx).stream();
    // A long contiguous axis is split over a block; otherwise (strided
    // axis, or short rows) one thread per result is enough.
    constexpr int64_t kMinBlockRow = 1024;
    if (inner == 1 && n >= kMinBlockRow) {
      const unsigned int blocks =
          static_cast<unsigned int>(std::min<int64_t>(outer, 65535 * 4));
      ArgMaxRowKernel<<<blocks, kArgMaxThreads, 0, stream>>>(x->data<T>(), o,
                                                             outer, n);
    } else {
      ArgMaxStridedKernel<<<BlocksFor(outer * inner), kThreadsPerBlock, 0,
                            stream>>>(x->data<T>(), o, outer, n, inner);
    }
    PDLITE_CUDA_LAUNCH_CHECK();
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(arg_max,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::ArgMaxCUDAKernel<float>);
