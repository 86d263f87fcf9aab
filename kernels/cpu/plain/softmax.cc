#include <algorithm>
#include <cmath>
#include <vector>

#include "framework/kernel_registry.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class SoftmaxKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const T* in = x->data<T>();
    T* o = out->mutable_data<T>(ctx.GetPlace());
    const framework::DDim& dims = x->dims();
    const int rank = static_cast<int>(dims.size());
    if (rank == 0) {  // Paddle defines the softmax of a 0-D tensor as 1
      o[0] = T(1);
      return;
    }
    int axis = ctx.Attr<int>("axis");
    if (axis < 0) axis += rank;
    const int64_t n = dims[axis];
    const int64_t inner = framework::Product(dims, axis + 1, rank);
    const int64_t columns = framework::Product(dims, 0, axis) * inner;
    if (columns == 0 || n == 0) return;

    // A column is one softmax: n values `inner` apart. Threads take ranges
    // of columns; neighbouring columns of one outer index are processed
    // together so the inner loops run over contiguous memory.
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        columns, 24.0 * n, [&](int64_t begin, int64_t end) {
          if (inner == 1) {  // the usual last-axis case: contiguous rows
            for (int64_t c = begin; c < end; ++c) {
              SoftmaxRow(in + c * n, o + c * n, n);
            }
            return;
          }
          std::vector<T> acc;
          for (int64_t c = begin; c < end;) {
            const int64_t outer = c / inner;
            const int64_t i0 = c % inner;
            const int64_t len = std::min(inner - i0, end - c);
            const T* xp = in + outer * n * inner + i0;
            T* op = o + outer * n * inner + i0;
            SoftmaxColumns(xp, op, n, inner, len, &acc);
            c += len;
          }
        });
  }

 private:
  // Softmax of n contiguous values. Subtracting the max keeps exp() from
  // overflowing.
  static void SoftmaxRow(const T* x, T* out, int64_t n) {
    T mx = x[0];
    for (int64_t k = 1; k < n; ++k) mx = std::max(mx, x[k]);
    T sum = 0;
    for (int64_t k = 0; k < n; ++k) {
      out[k] = std::exp(x[k] - mx);
      sum += out[k];
    }
    const T inv = T(1) / sum;
    for (int64_t k = 0; k < n; ++k) out[k] *= inv;
  }

  // Softmax of `len` adjacent columns of n values with row stride
  // `stride`, same steps as SoftmaxRow vectorized across the columns.
  static void SoftmaxColumns(const T* x,
                             T* out,
                             int64_t n,
                             int64_t stride,
                             int64_t len,
                             std::vector<T>* acc) {
    acc->assign(x, x + len);  // running max
    T* a = acc->data();
    for (int64_t k = 1; k < n; ++k) {
      const T* row = x + k * stride;
      for (int64_t j = 0; j < len; ++j) a[j] = std::max(a[j], row[j]);
    }
    for (int64_t k = 0; k < n; ++k) {
      const T* row = x + k * stride;
      T* orow = out + k * stride;
      for (int64_t j = 0; j < len; ++j) orow[j] = std::exp(row[j] - a[j]);
    }
    std::fill(a, a + len, T(0));  // now the sum
    for (int64_t k = 0; k < n; ++k) {
      const T* orow = out + k * stride;
      for (int64_t j = 0; j < len; ++j) a[j] += orow[j];
    }
    for (int64_t j = 0; j < len; ++j) a[j] = T(1) / a[j];
    for (int64_t k = 0; k < n; ++k) {
      T* orow = out + k * stride;
      for (int64_t j = 0; j < len; ++j) orow[j] *= a[j];
    }
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(softmax,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::SoftmaxKernel<float>,
                   paddle_lite::kernels::SoftmaxKernel<double>);
