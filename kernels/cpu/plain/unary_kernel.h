// Element-wise unary kernel over a functor, split across the CPU context's
// threads. Private to kernels/cpu/plain.
#pragma once

#include "framework/kernel_registry.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

/// Applies `Functor` (constructed from the ExecutionContext, so it can read
/// attributes) to every element: Out[i] = f(X[i]). `kCost` is a rough
/// cycle count per element for the parallel split.
template <typename T, typename Functor, int kCost = 4>
class UnaryKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const T* in = x->data<T>();
    T* o = out->mutable_data<T>(ctx.GetPlace());
    Functor f(ctx);
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        x->numel(), kCost, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) o[i] = f(in[i]);
        });
  }
};

}  // namespace kernels
}  // namespace paddle_lite
