// The oneDNN kernel of the activation ops (relu, relu6, leaky_relu,
// hard_swish, sigmoid, swish, tanh): one eltwise primitive over the tensor
// viewed as 1-D, or in its MKLDNN layout when it has one (the output then
// keeps that layout). Private to kernels/cpu/mkldnn; each op's .cc file maps
// its attributes onto a oneDNN algorithm.
//
// hard_sigmoid has none: oneDNN 2.6 lacks the algorithm, and an eltwise
// primitive with a clip post-op falls to its reference implementation,
// which leaves the output unwritten.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>

#include "framework/kernel_registry.h"
#include "kernels/cpu/mkldnn/mkldnn_helper.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

/// An activation as oneDNN computes it: algorithm(x; alpha, beta).
/// `exact` = false when the op's attributes give a function oneDNN's
/// algorithms do not express; the PLAIN kernel runs then.
struct EltwiseSpec {
  bool exact = true;
  dnnl::algorithm algorithm = dnnl::algorithm::eltwise_relu;
  float alpha = 0.f;
  float beta = 0.f;
};

/// Below this many elements the PLAIN loop beats a primitive call.
constexpr int64_t kMinEltwiseElements = 4096;

struct EltwisePrimitive {
  dnnl::eltwise_forward::primitive_desc pd;
  dnnl::eltwise_forward prim;
};

/// Out = f(X), f given by `SpecFn`, a functor EltwiseSpec(const
/// ExecutionContext&) that reads the op's attributes.
template <typename T, typename SpecFn>
class MkldnnEltwiseKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    if (RunKeptUnary<T>(ctx)) return;
    const EltwiseSpec spec = SpecFn()(ctx);
    const int64_t n = x->numel();
    // Small tensors run PLAIN, unless they come in a layout (a oneDNN
    // call costs less than converting them).
    if (!spec.exact ||
        (n < kMinEltwiseElements && MkldnnLayoutOf(*x) == nullptr)) {
      RunPlainKernel<T>(ctx);
      return;
    }
    MkldnnContext& mk = PrepareMkldnn(ctx);
    const InputSignature signature(ctx, {x});
    const std::shared_ptr<const MkldnnLayout> layout = InputLayout(ctx, "X");
    const dnnl::memory::desc md = layout ? layout->md() : PlainMd({n});
    KeyBuilder key("eltwise", ctx);
    key.Add(static_cast<int64_t>(spec.algorithm))
        .Add(spec.alpha)
        .Add(spec.beta)
        .Add(md);
    auto eltwise = mk.Primitive<EltwisePrimitive>(key.str(), [&] {
      auto p = std::make_shared<EltwisePrimitive>();
      dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference,
                                       spec.algorithm, md, spec.alpha,
                                       spec.beta);
      p->pd = dnnl::eltwise_forward::primitive_desc(desc, mk.engine());
      if (IsSlowImplementation(p->pd))
        return std::shared_ptr<EltwisePrimitive>();
      p->prim = dnnl::eltwise_forward(p->pd);
      return p;
    });
    if (!eltwise) {
      RunPlainKernel<T>(ctx);
      return;
    }
    const dnnl::memory src =
        UserMemory(eltwise->pd.src_desc(), mk.engine(), x->data<T>());
    // Out may be X (in place): its layout stays the same.
    const dnnl::memory dst =
        OutputMemory<T>(ctx, &mk, out, layout, eltwise->pd.dst_desc());
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, src},
                                                  {DNNL_ARG_DST, dst}};
    RunPrimitive(eltwise->prim, mk.stream(), args);
    mk.stream().wait();
    // Kept only if X was read as it came (the signature still holds).
    if (signature.Matches(ctx, {x})) {
      KeepUnary(ctx, signature, layout, eltwise->pd, eltwise->prim,
                std::move(args));
    }
  }
};

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
