// slice on CPU: copies the sub-block of Input row by row, where a row is
// the longest run that is contiguous in both Input and Out.
#include <cstring>
#include <vector>

#include "framework/kernel_registry.h"
#include "operators/slice_utils.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class SliceKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* input = ctx.Input<framework::Tensor>("Input");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const operators::SliceBounds b = operators::ComputeSliceBounds(ctx);
    operators::CheckSliceOutput(*out, b);
    T* o = out->mutable_data<T>(ctx.GetPlace());
    const int64_t n = out->numel();
    if (n == 0) return;
    const T* in = input->data<T>();
    const framework::DDim& in_dims = input->dims();
    const int rank = static_cast<int>(in_dims.size());
    if (rank == 0) {
      o[0] = in[0];
      return;
    }
    // Dims after `split` are taken whole, so each row spans them and the
    // part [start, start + size) of dim `split`.
    int split = rank - 1;
    while (split > 0 && b.sliced_dims[split] == in_dims[split]) --split;
    const int64_t tail = framework::Product(in_dims, split + 1, rank);
    const int64_t row = b.sliced_dims[split] * tail;
    const int64_t row_start = b.starts[split] * tail;
    std::vector<int64_t> strides(rank, 1);
    for (int i = rank - 2; i >= 0; --i) {
      strides[i] = strides[i + 1] * in_dims[i + 1];
    }
    const int64_t rows = n / row;
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        rows, static_cast<double>(row), [&](int64_t begin, int64_t end) {
          std::vector<int64_t> idx(split, 0);
          int64_t offset = row_start;
          int64_t rest = begin;
          for (int d = split - 1; d >= 0; --d) {
            idx[d] = rest % b.sliced_dims[d];
            rest /= b.sliced_dims[d];
          }
          for (int d = 0; d < split; ++d) {
            offset += (idx[d] + b.starts[d]) * strides[d];
          }
          for (int64_t r = begin; r < end; ++r) {
            std::memcpy(o + r * row, in + offset, sizeof(T) * row);
            for (int d = split - 1; d >= 0; --d) {
              offset += strides[d];
              if (++idx[d] < b.sliced_dims[d]) break;
              offset -= idx[d] * strides[d];
              idx[d] = 0;
            }
          }
        });
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    slice,
    PLAIN,
    CPUPlace,
    paddle_lite::kernels::SliceKernel<float>,
    paddle_lite::kernels::SliceKernel<double>,
    paddle_lite::kernels::SliceKernel<int32_t>,
    paddle_lite::kernels::SliceKernel<int64_t>,
    paddle_lite::kernels::SliceKernel<bool>,
    paddle_lite::kernels::SliceKernel<uint8_t>,
    paddle_lite::kernels::SliceKernel<int8_t>,
    paddle_lite::kernels::SliceKernel<int16_t>,
    paddle_lite::kernels::SliceKernel<paddle_lite::platform::float16>,
    paddle_lite::kernels::SliceKernel<paddle_lite::platform::bfloat16>);
