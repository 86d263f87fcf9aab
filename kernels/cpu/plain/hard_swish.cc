#include "kernels/cpu/plain/unary_kernel.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class HardSwishFunctor {
 public:
  explicit HardSwishFunctor(const framework::ExecutionContext& ctx)
      : threshold_(static_cast<T>(ctx.Attr<float>("threshold"))),
        scale_(static_cast<T>(ctx.Attr<float>("scale"))),
        offset_(static_cast<T>(ctx.Attr<float>("offset"))) {}
  T operator()(T x) const {
    T v = x + offset_;
    v = v > T(0) ? v : T(0);
    v = v < threshold_ ? v : threshold_;
    return x * v / scale_;
  }

 private:
  T threshold_;
  T scale_;
  T offset_;
};

template <typename T>
using HardSwishKernel = UnaryKernel<T, HardSwishFunctor<T>, 4>;

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(hard_swish,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::HardSwishKernel<float>,
                   paddle_lite::kernels::HardSwishKernel<double>);
