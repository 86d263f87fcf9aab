// transpose2 on CPU: Out[j0, ..., jn] = X[i] with i[axis[k]] = j[k].
#include <cstring>
#include <vector>

#include "framework/kernel_registry.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class Transpose2Kernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const auto axis = ctx.Attr<std::vector<int32_t>>("axis");
    const framework::DDim& x_dims = x->dims();
    const int rank = static_cast<int>(x_dims.size());
    const T* in = x->data<T>();
    T* o = out->mutable_data<T>(ctx.GetPlace());
    const int64_t n = out->numel();
    if (n == 0) return;
    if (rank == 0) {
      o[0] = in[0];
      return;
    }
    // Stride in X of each output dim, so walking Out in order is an
    // odometer over out_dims stepping X by these strides.
    std::vector<int64_t> x_strides(rank, 1);
    for (int i = rank - 2; i >= 0; --i) {
      x_strides[i] = x_strides[i + 1] * x_dims[i + 1];
    }
    std::vector<int64_t> out_dims(rank), strides(rank);
    for (int i = 0; i < rank; ++i) {
      const int a = axis[i] < 0 ? axis[i] + rank : axis[i];
      out_dims[i] = x_dims[a];
      strides[i] = x_strides[a];
    }
    const int64_t inner = out_dims[rank - 1];
    const int64_t inner_stride = strides[rank - 1];
    const int64_t rows = n / inner;
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        rows, static_cast<double>(inner) * 2, [&](int64_t begin, int64_t end) {
          // Index of row `begin` over the leading rank-1 output dims.
          std::vector<int64_t> idx(rank, 0);
          int64_t offset = 0;
          int64_t rest = begin;
          for (int d = rank - 2; d >= 0; --d) {
            idx[d] = rest % out_dims[d];
            rest /= out_dims[d];
            offset += idx[d] * strides[d];
          }
          for (int64_t row = begin; row < end; ++row) {
            T* dst = o + row * inner;
            if (inner_stride == 1) {
              std::memcpy(dst, in + offset, sizeof(T) * inner);
            } else {
              for (int64_t k = 0; k < inner; ++k) {
                dst[k] = in[offset + k * inner_stride];
              }
            }
            for (int d = rank - 2; d >= 0; --d) {
              offset += strides[d];
              if (++idx[d] < out_dims[d]) break;
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
    transpose2,
    PLAIN,
    CPUPlace,
    paddle_lite::kernels::Transpose2Kernel<float>,
    paddle_lite::kernels::Transpose2Kernel<double>,
    paddle_lite::kernels::Transpose2Kernel<int32_t>,
    paddle_lite::kernels::Transpose2Kernel<int64_t>,
    paddle_lite::kernels::Transpose2Kernel<bool>,
    paddle_lite::kernels::Transpose2Kernel<uint8_t>,
    paddle_lite::kernels::Transpose2Kernel<int8_t>,
    paddle_lite::kernels::Transpose2Kernel<int16_t>,
    paddle_lite::kernels::Transpose2Kernel<paddle_lite::platform::float16>,
    paddle_lite::kernels::Transpose2Kernel<paddle_lite::platform::bfloat16>);
