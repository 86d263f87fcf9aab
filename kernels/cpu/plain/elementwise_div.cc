#include <limits>
#include <type_traits>

#include "kernels/cpu/plain/elementwise_kernel.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
struct DivFunctor {
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      // min / -1 overflows and traps on x86; Paddle's result there is
      // undefined, so wrap around like the other integer ops do.
      if (y == T(-1)) {
        return static_cast<T>(-static_cast<std::make_unsigned_t<T>>(x));
      }
    }
    return x / y;
  }
};

template <typename T>
class ElementwiseDivKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    if constexpr (std::is_integral_v<T>) {
      // Checked up front so the error is thrown on the calling thread, not
      // from inside a worker of the parallel loop.
      const auto* x = ctx.Input<framework::Tensor>("X");
      const auto* y = ctx.Input<framework::Tensor>("Y");
      const int64_t n = y->numel();
      const T* yp = y->data<T>();
      if (x->numel() > 0) {
        for (int64_t i = 0; i < n; ++i) {
          PADDLE_ENFORCE_NE(
              yp[i], T(0),
              errors::InvalidArgument(
                  ctx.op().Type(), ": integer division by zero (Y ", y->dims(),
                  " has 0 at flat index ", i, ")."));
        }
      }
    }
    ElementwiseCompute<T>(ctx, DivFunctor<T>());
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(elementwise_div,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::ElementwiseDivKernel<float>,
                   paddle_lite::kernels::ElementwiseDivKernel<double>,
                   paddle_lite::kernels::ElementwiseDivKernel<int32_t>,
                   paddle_lite::kernels::ElementwiseDivKernel<int64_t>);
