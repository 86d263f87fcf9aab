// mul on CPU: one GEMM of X flattened to [M, K] and Y flattened to [K, N].
#include "framework/kernel_registry.h"
#include "kernels/cpu/plain/gemm.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class MulKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto* y = ctx.Input<framework::Tensor>("Y");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const int x_num_col_dims = ctx.Attr<int>("x_num_col_dims");
    const int y_num_col_dims = ctx.Attr<int>("y_num_col_dims");
    GemmShape shape;
    shape.m = framework::Product(x->dims(), 0, x_num_col_dims);
    shape.k = framework::Product(x->dims(), x_num_col_dims, x->rank());
    shape.n = framework::Product(y->dims(), y_num_col_dims, y->rank());
    T* o = out->mutable_data<T>(ctx.GetPlace());
    BatchedGemm<T>(ctx.device_context<platform::CPUDeviceContext>(), shape,
                   T(1), *x, /*a_offsets=*/{0}, *y, /*b_offsets=*/{0}, o);
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(mul,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::MulKernel<float>,
                   paddle_lite::kernels::MulKernel<double>);
