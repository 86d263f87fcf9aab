#include "kernels/cpu/plain/unary_kernel.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class Relu6Functor {
 public:
  explicit Relu6Functor(const framework::ExecutionContext& ctx)
      : threshold_(static_cast<T>(ctx.Attr<float>("threshold"))) {}
  T operator()(T x) const {
    T v = x > T(0) ? x : T(0);
    return v < threshold_ ? v : threshold_;
  }

 private:
  T threshold_;
};

template <typename T>
using Relu6Kernel = UnaryKernel<T, Relu6Functor<T>, 1>;

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(relu6,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::Relu6Kernel<float>,
                   paddle_lite::kernels::Relu6Kernel<double>);
