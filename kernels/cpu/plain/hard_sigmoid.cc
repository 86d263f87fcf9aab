#include "kernels/cpu/plain/unary_kernel.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class HardSigmoidFunctor {
 public:
  explicit HardSigmoidFunctor(const framework::ExecutionContext& ctx)
      : slope_(static_cast<T>(ctx.Attr<float>("slope"))),
        offset_(static_cast<T>(ctx.Attr<float>("offset"))) {}
  T operator()(T x) const {
    T v = slope_ * x + offset_;
    v = v > T(1) ? T(1) : v;  // compared so that a NaN stays NaN
    return v < T(0) ? T(0) : v;
  }

 private:
  T slope_;
  T offset_;
};

template <typename T>
using HardSigmoidKernel = UnaryKernel<T, HardSigmoidFunctor<T>, 2>;

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(hard_sigmoid,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::HardSigmoidKernel<float>,
                   paddle_lite::kernels::HardSigmoidKernel<double>);
