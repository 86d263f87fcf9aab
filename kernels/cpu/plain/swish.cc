#include <cmath>

#include "kernels/cpu/plain/unary_kernel.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class SwishFunctor {
 public:
  explicit SwishFunctor(const framework::ExecutionContext& ctx)
      : beta_(static_cast<T>(ctx.Attr<float>("beta"))) {}
  T operator()(T x) const { return x / (T(1) + std::exp(-beta_ * x)); }

 private:
  T beta_;
};

template <typename T>
using SwishKernel = UnaryKernel<T, SwishFunctor<T>, 20>;

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(swish,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::SwishKernel<float>,
                   paddle_lite::kernels::SwishKernel<double>);
