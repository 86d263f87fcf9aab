// fc on CPU: one GEMM of Input flattened to [M, K] with W [K, N], then the
// bias and the activation in one sweep over the rows.
#include "framework/kernel_registry.h"
#include "kernels/cpu/plain/fused_activation.h"
#include "kernels/cpu/plain/gemm.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class FcKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* input = ctx.Input<framework::Tensor>("Input");
    const auto* w = ctx.Input<framework::Tensor>("W");
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const int in_num_col_dims = ctx.Attr<int>("in_num_col_dims");
    GemmShape shape;
    shape.m = framework::Product(input->dims(), 0, in_num_col_dims);
    shape.k = framework::Product(input->dims(), in_num_col_dims, input->rank());
    shape.n = w->dims()[1];
    T* o = out->mutable_data<T>(ctx.GetPlace());
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    BatchedGemm<T>(dev, shape, T(1), *input, /*a_offsets=*/{0}, *w,
                   /*b_offsets=*/{0}, o);
    if (out->numel() == 0) return;
    const T* b = bias ? bias->data<T>() : nullptr;
    const bool relu = ctx.Attr<std::string>("activation_type") == "relu";
    if (b == nullptr && !relu) return;
    const int64_t n = shape.n;
    dev.ParallelFor(shape.m, 2.0 * n, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        T* row = o + r * n;
        if (b != nullptr) {
          for (int64_t j = 0; j < n; ++j) row[j] += b[j];
        }
        if (relu) {
          for (int64_t j = 0; j < n; ++j) {
            row[j] = fused_activation::Relu<T>()(row[j]);
          }
        }
      }
    });
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(fc,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::FcKernel<float>,
                   paddle_lite::kernels::FcKernel<double>);
