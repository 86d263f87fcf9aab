// The CUDA kernel of lookup_table and lookup_table_v2 (spec §11.1,
// §11.2): Out row i = W[Ids[i]], or zeros where Ids[i] == padding_idx.
// The ops differ only in Out's shape, which InferShape set. Private to
// kernels/cuda/plain.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/cuda/cuda_helper.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

/// Row i of Out per blockIdx.y. An id outside the table (and not
/// padding_idx, which is tested first as Paddle does: it may lie outside
/// the table) gives a zero row and records its position in `*first_bad`
/// (the smallest such position wins).
template <typename T, typename IdT>
__global__ void LookupTableKernel(const T* table,
                                  const IdT* ids,
                                  T* out,
                                  int64_t n,
                                  int64_t rows,
                                  int64_t width,
                                  int64_t padding_idx,
                                  unsigned long long* first_bad) {  // NOLINT
  for (int64_t i = blockIdx.y; i < n; i += gridDim.y) {
    const int64_t v = static_cast<int64_t>(ids[i]);
    const bool padding = padding_idx != -1 && v == padding_idx;
    const bool valid = !padding && v >= 0 && v < rows;
    if (!padding && !valid && threadIdx.x == 0 && blockIdx.x == 0) {
      atomicMin(first_bad, static_cast<unsigned long long>(i));  // NOLINT
    }
    T* dst = out + i * width;
    const T* src = valid ? table + v * width : nullptr;
    for (int64_t j =
             static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
         j < width; j += static_cast<int64_t>(blockDim.x) * gridDim.x) {
      dst[j] = valid ? src[j] : T(0);
    }
  }
}

template <typename T>
class LookupTableCUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* ids = ctx.Input<framework::Tensor>("Ids");
    if (ids->dtype() == framework::DataType::kInt32) {
      Run<int32_t>(ctx);
    } else {
      Run<int64_t>(ctx);
    }
  }

 private:
  template <typename IdT>
  static void Run(const framework::ExecutionContext& ctx) {
    const auto* table = ctx.Input<framework::Tensor>("W");
    const auto* ids = ctx.Input<framework::Tensor>("Ids");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const auto& dev = DeviceContextOf(ctx);
    cudaStream_t stream = dev.stream();
    const int64_t rows = table->dims()[0];
    const int64_t width = table->dims()[1];
    const int64_t padding_idx = ctx.Attr<int64_t>("padding_idx");
    T* o = AllocateOutput<T>(ctx, out);
    const int64_t n = ids->numel();
    if (n == 0 || width == 0) return;
    const IdT* id = ids->data<IdT>();
    const T* w = rows > 0 ? table->data<T>() : nullptr;

    framework::Tensor flag;
    flag.Resize({1});
    auto* first_bad = reinterpret_cast<unsigned long long*>(  // NOLINT
        flag.mutable_data<int64_t>(ctx.GetPlace()));
    PDLITE_CUDA_CHECK(
        cudaMemsetAsync(first_bad, 0xff, sizeof(*first_bad), stream));
    const int threads = static_cast<int>(
        std::min<int64_t>(kThreadsPerBlock, (width + 31) / 32 * 32));
    const dim3 grid(static_cast<unsigned int>(std::min<int64_t>(
                        (width + threads - 1) / threads, 65535)),
                    static_cast<unsigned int>(std::min<int64_t>(n, 65535)));
    LookupTableKernel<<<grid, threads, 0, stream>>>(w, id, o, n, rows, width,
                                                    padding_idx, first_bad);
    PDLITE_CUDA_LAUNCH_CHECK();

    // The CPU kernel rejects an id outside the table; telling the caller
    // the same needs the kernel's verdict on the host, so this op waits
    // for the stream.
    unsigned long long bad = 0;  // NOLINT
    PDLITE_CUDA_CHECK(cudaMemcpyAsync(&bad, first_bad, sizeof(bad),
                                      cudaMemcpyDeviceToHost, stream));
    PDLITE_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (bad == ~0ull) return;
    const int64_t i = static_cast<int64_t>(bad);
    IdT value = 0;
    PDLITE_CUDA_CHECK(cudaMemcpyAsync(&value, id + i, sizeof(value),
                                      cudaMemcpyDeviceToHost, stream));
    PDLITE_CUDA_CHECK(cudaStreamSynchronize(stream));
    const int64_t v = static_cast<int64_t>(value);
    PADDLE_THROW(errors::InvalidArgument(ctx.op().Type(), ": Ids element ", i,
                                         " is ", v, ", outside the table W of ",
                                         rows, " rows (ids must lie in [0, ",
                                         rows, "))"));
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite
