#include "kernels/cpu/plain/unary_kernel.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class LeakyReluFunctor {
 public:
  explicit LeakyReluFunctor(const framework::ExecutionContext& ctx)
      : alpha_(static_cast<T>(ctx.Attr<float>("alpha"))) {}
  T operator()(T x) const { return x >= T(0) ? x : alpha_ * x; }

 private:
  T alpha_;
};

template <typename T>
using LeakyReluKernel = UnaryKernel<T, LeakyReluFunctor<T>, 1>;

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(leaky_relu,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::LeakyReluKernel<float>,
                   paddle_lite::kernels::LeakyReluKernel<double>);
