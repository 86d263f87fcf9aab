// Broadcasting element-wise binary kernels of the CUDA place (the four
// elementwise_* ops and the fused_elementwise_* ops), parameterized by a
// device functor. The broadcast rule is operators/elementwise_shape.h's;
// the dims are coalesced the way the CPU kernel does it
// (kernels/cpu/plain/elementwise_kernel.h): size-1 output dims dropped and
// neighbours broadcast the same way merged. Equal shapes thus become one
// flat loop and the conv-bias case (X [N, C, H, W] + Y [C], axis 1) rows
// of H*W elements that share one value of Y, found without per-element
// index division. Private to kernels/cuda/plain.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/cuda/cuda_helper.h"
#include "operators/elementwise_shape.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

/// Paddle's rank limit; coalescing never raises the rank.
constexpr int kMaxBroadcastRank = 9;

/// Output dims after coalescing, innermost last, with the element strides
/// of X and Y (0 where that operand is broadcast).
struct BroadcastDims {
  int rank = 0;  ///< 0: a single element
  int64_t size[kMaxBroadcastRank] = {};
  int64_t x_stride[kMaxBroadcastRank] = {};
  int64_t y_stride[kMaxBroadcastRank] = {};
};

inline BroadcastDims CoalesceBroadcast(
    const operators::ElementwiseBroadcast& shapes) {
  BroadcastDims d;
  bool x_bcast[kMaxBroadcastRank] = {};
  bool y_bcast[kMaxBroadcastRank] = {};
  for (size_t i = 0; i < shapes.out.size(); ++i) {
    const int64_t n = shapes.out[i];
    if (n == 1) continue;
    const bool xb = shapes.x[i] == 1;
    const bool yb = shapes.y[i] == 1;
    if (d.rank > 0 && x_bcast[d.rank - 1] == xb && y_bcast[d.rank - 1] == yb) {
      d.size[d.rank - 1] *= n;
      continue;
    }
    PADDLE_ENFORCE(
        d.rank < kMaxBroadcastRank,
        errors::Unimplemented("element-wise CUDA kernels handle at most ",
                              kMaxBroadcastRank, " broadcast dims; X ",
                              shapes.x, ", Y ", shapes.y, " need more."));
    d.size[d.rank] = n;
    x_bcast[d.rank] = xb;
    y_bcast[d.rank] = yb;
    ++d.rank;
  }
  int64_t xs = 1;
  int64_t ys = 1;
  for (int i = d.rank - 1; i >= 0; --i) {
    d.x_stride[i] = x_bcast[i] ? 0 : xs;
    d.y_stride[i] = y_bcast[i] ? 0 : ys;
    if (!x_bcast[i]) xs *= d.size[i];
    if (!y_bcast[i]) ys *= d.size[i];
  }
  return d;
}

template <typename T>
struct AddFunctor {
  __device__ T operator()(T x, T y) const { return x + y; }
};
template <typename T>
struct SubFunctor {
  __device__ T operator()(T x, T y) const { return x - y; }
};
template <typename T>
struct MulFunctor {
  __device__ T operator()(T x, T y) const { return x * y; }
};
template <typename T>
struct DivFunctor {
  __device__ T operator()(T x, T y) const { return x / y; }
};

/// Out[i] = f(X[i * xs], Y[i * ys]), xs and ys 0 or 1: equal shapes, or
/// one operand a single value.
template <typename T, typename OutT, typename F>
__global__ void ElementwiseFlatKernel(
    const T* x, const T* y, OutT* out, int64_t n, int64_t xs, int64_t ys, F f) {
  PDLITE_CUDA_KERNEL_LOOP(i, n) { out[i] = f(x[i * xs], y[i * ys]); }
}

/// Rows of the innermost dim: blockIdx.y walks the rows (the offsets of a
/// row in X and Y are found once per row), x-threads its elements.
template <typename T, typename OutT, typename F>
__global__ void ElementwiseRowKernel(
    const T* x, const T* y, OutT* out, BroadcastDims d, int64_t rows, F f) {
  const int last = d.rank - 1;
  const int64_t inner = d.size[last];
  const int64_t xs = d.x_stride[last];
  const int64_t ys = d.y_stride[last];
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    int64_t rest = row;
    int64_t x_off = 0;
    int64_t y_off = 0;
    // Fixed trip count so the dims are indexed by constants.
#pragma unroll
    for (int k = kMaxBroadcastRank - 2; k >= 0; --k) {
      if (k < last) {
        const int64_t idx = rest % d.size[k];
        rest /= d.size[k];
        x_off += idx * d.x_stride[k];
        y_off += idx * d.y_stride[k];
      }
    }
    const T* xr = x + x_off;
    const T* yr = y + y_off;
    OutT* o = out + row * inner;
    for (int64_t j =
             static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
         j < inner; j += static_cast<int64_t>(blockDim.x) * gridDim.x) {
      o[j] = f(xr[j * xs], yr[j * ys]);
    }
  }
}

/// Any broadcast with a short innermost dim: the multi-index of every
/// element is found by division.
template <typename T, typename OutT, typename F>
__global__ void ElementwiseIndexKernel(
    const T* x, const T* y, OutT* out, BroadcastDims d, int64_t n, F f) {
  PDLITE_CUDA_KERNEL_LOOP(i, n) {
    int64_t rest = i;
    int64_t x_off = 0;
    int64_t y_off = 0;
#pragma unroll
    for (int k = kMaxBroadcastRank - 1; k >= 0; --k) {
      if (k < d.rank) {
        const int64_t idx = rest % d.size[k];
        rest /= d.size[k];
        x_off += idx * d.x_stride[k];
        y_off += idx * d.y_stride[k];
      }
    }
    out[i] = f(x[x_off], y[y_off]);
  }
}

/// Out = f(X, Y) with X, Y broadcast by `shapes`, queued on dev's stream.
template <typename T, typename OutT, typename F>
void LaunchElementwise(const CUDADeviceContext& dev,
                       const operators::ElementwiseBroadcast& shapes,
                       const T* x,
                       const T* y,
                       OutT* out,
                       F f) {
  const int64_t numel = framework::Product(shapes.out);
  if (numel == 0) return;
  const BroadcastDims d = CoalesceBroadcast(shapes);
  cudaStream_t stream = dev.stream();
  if (d.rank <= 1) {
    // rank 0 (one element) reads index 0 of both.
    const int64_t xs = d.rank == 1 ? d.x_stride[0] : 0;
    const int64_t ys = d.rank == 1 ? d.y_stride[0] : 0;
    ElementwiseFlatKernel<<<BlocksFor(numel), kThreadsPerBlock, 0, stream>>>(
        x, y, out, numel, xs, ys, f);
    PDLITE_CUDA_LAUNCH_CHECK();
    return;
  }
  const int64_t inner = d.size[d.rank - 1];
  // Below a warp per row the row kernel idles most of its threads.
  constexpr int64_t kMinRow = 32;
  if (inner >= kMinRow) {
    const int64_t rows = numel / inner;
    const int threads = static_cast<int>(
        std::min<int64_t>(kThreadsPerBlock, (inner + 31) / 32 * 32));
    const dim3 grid(static_cast<unsigned int>(std::min<int64_t>(
                        (inner + threads - 1) / threads, 65535)),
                    static_cast<unsigned int>(std::min<int64_t>(rows, 65535)));
    ElementwiseRowKernel<<<grid, threads, 0, stream>>>(x, y, out, d, rows, f);
    PDLITE_CUDA_LAUNCH_CHECK();
    return;
  }
  ElementwiseIndexKernel<<<BlocksFor(numel), kThreadsPerBlock, 0, stream>>>(
      x, y, out, d, numel, f);
  PDLITE_CUDA_LAUNCH_CHECK();
}

/// Reads X, Y and axis from `ctx` and fills Out (sized by InferShape) with
/// f(X, Y); Out is allocated even when empty.
template <typename T, typename F>
void ElementwiseCUDACompute(const framework::ExecutionContext& ctx, F f) {
  const auto* x = ctx.Input<framework::Tensor>("X");
  const auto* y = ctx.Input<framework::Tensor>("Y");
  auto* out = ctx.Output<framework::Tensor>("Out");
  const operators::ElementwiseBroadcast shapes =
      operators::BroadcastElementwiseDims(ctx.op().Type(), x->dims(), y->dims(),
                                          ctx.Attr<int>("axis"));
  T* o = AllocateOutput<T>(ctx, out);
  if (out->numel() == 0) return;
  LaunchElementwise<T>(DeviceContextOf(ctx), shapes, x->data<T>(), y->data<T>(),
                       o, f);
}

/// Kernel of an element-wise op whose functor needs no checks.
template <typename T, typename Functor>
class ElementwiseCUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    ElementwiseCUDACompute<T>(ctx, Functor());
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite
