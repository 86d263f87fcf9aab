// layer_norm on the CUDA place (spec §4.2): one block per row of
// [left, right], with the CPU kernel's arithmetic: two passes in double
// (the biased variance of the centred values), then
// (x - mean) / sqrt(var + epsilon) * Scale + Bias in double.
#include <algorithm>
#include <cstdint>

#include "kernels/cuda/cuda_helper.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

namespace {

/// Sum of `v` over the block (blockDim.x a multiple of 32, at most 1024),
/// returned to every thread. `scratch` holds 33 doubles.
__device__ inline double BlockSum(double v, double* scratch) {
  for (int offset = 16; offset > 0; offset /= 2) {
    v += __shfl_down_sync(0xffffffffu, v, offset);
  }
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  if (warp == 0) {
    const int warps = blockDim.x / 32;
    v = lane < warps ? scratch[lane] : 0.0;
    for (int offset = 16; offset > 0; offset /= 2) {
      v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    if (lane == 0) scratch[32] = v;
  }
  __syncthreads();
  const double sum = scratch[32];
  __syncthreads();  // scratch is reused by the next call
  return sum;
}

template <typename T>
__global__ void LayerNormKernel(const T* x,
                                const T* gain,
                                const T* shift,
                                T* y,
                                T* mean_out,
                                T* var_out,
                                int64_t left,
                                int64_t right,
                                double epsilon) {
  __shared__ double scratch[33];
  for (int64_t r = blockIdx.x; r < left; r += gridDim.x) {
    const T* row = x + r * right;
    T* dst = y + r * right;
    double sum = 0;
    for (int64_t i = threadIdx.x; i < right; i += blockDim.x) sum += row[i];
    const double mean = BlockSum(sum, scratch) / right;
    double sq = 0;
    for (int64_t i = threadIdx.x; i < right; i += blockDim.x) {
      const double d = row[i] - mean;
      sq += d * d;
    }
    const double var = BlockSum(sq, scratch) / right;
    const double inv_std = 1.0 / sqrt(var + epsilon);
    for (int64_t i = threadIdx.x; i < right; i += blockDim.x) {
      // Rounded products: the CPU does not fuse them with the addition.
      double v = __dmul_rn(row[i] - mean, inv_std);
      if (gain) v = __dmul_rn(v, static_cast<double>(gain[i]));
      if (shift) v += static_cast<double>(shift[i]);
      dst[i] = static_cast<T>(v);
    }
    if (threadIdx.x == 0) {
      if (mean_out) mean_out[r] = static_cast<T>(mean);
      if (var_out) var_out[r] = static_cast<T>(var);
    }
  }
}

}  // namespace

template <typename T>
class LayerNormCUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto* scale = ctx.Input<framework::Tensor>("Scale");
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    auto* y = ctx.Output<framework::Tensor>("Y");
    auto* mean_out = ctx.Output<framework::Tensor>("Mean");
    auto* var_out = ctx.Output<framework::Tensor>("Variance");
    const auto& dims = x->dims();
    const int axis = ctx.Attr<int>("begin_norm_axis");
    const int64_t left = framework::Product(dims, 0, axis);
    const int64_t right =
        framework::Product(dims, axis, static_cast<int>(dims.size()));
    const double epsilon = ctx.Attr<float>("epsilon");
    T* out = AllocateOutput<T>(ctx, y);
    T* mean_data = mean_out ? AllocateOutput<T>(ctx, mean_out) : nullptr;
    T* var_data = var_out ? AllocateOutput<T>(ctx, var_out) : nullptr;
    if (left == 0 || right == 0) return;
    // Short rows take a smaller block so fewer threads idle.
    int threads = 32;
    while (threads < kThreadsPerBlock && threads < right) threads *= 2;
    const unsigned int blocks =
        static_cast<unsigned int>(std::min<int64_t>(left, 65535 * 16));
    LayerNormKernel<<<blocks, threads, 0, DeviceContextOf(ctx).stream()>>>(
        x->data<T>(), scale ? scale->data<T>() : nullptr,
        bias ? bias->data<T>() : nullptr, out, mean_data, var_data, left, right,
        epsilon);
    PDLITE_CUDA_LAUNCH_CHECK();
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(layer_norm,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::LayerNormCUDAKernel<float>);
