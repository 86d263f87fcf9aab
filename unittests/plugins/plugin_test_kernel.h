// A trivial op and kernel the test plugins register: Out = 2 * X. Private
// to unittests/plugins.
#pragma once

#include "framework/kernel_registry.h"
#include "operators/unary_op.h"

namespace plugin_test {

class DoubleOpMaker : public paddle_lite::operators::UnaryOpMaker {};

template <typename T>
class DoubleKernel : public paddle_lite::framework::OpKernel<T> {
 public:
  void Compute(
      const paddle_lite::framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<paddle_lite::framework::Tensor>("X");
    auto* out = ctx.Output<paddle_lite::framework::Tensor>("Out");
    const T* in = x->data<T>();
    T* o = out->mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < x->numel(); ++i) o[i] = in[i] * T(2);
  }
};

}  // namespace plugin_test
