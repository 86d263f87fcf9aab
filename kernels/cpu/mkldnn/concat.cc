// concat with oneDNN: every input viewed as [outer, row] (the dims before
// axis, the rest) and joined along the rows. Empty inputs contribute
// nothing and are left out, as in the PLAIN kernel.
#include <memory>
#include <unordered_map>
#include <vector>

#include "framework/kernel_registry.h"
#include "kernels/cpu/mkldnn/mkldnn_helper.h"
#include "operators/shape_op_utils.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

struct ConcatPrimitive {
  dnnl::concat::primitive_desc pd;
  dnnl::concat prim;
};

template <typename T>
class MkldnnConcatKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    auto* out = ctx.Output<framework::Tensor>("Out");
    T* o = out->mutable_data<T>(ctx.GetPlace());
    if (out->numel() == 0) return;
    int64_t axis = ctx.Attr<int32_t>("axis");
    if (ctx.HasInput("AxisTensor")) {
      axis = operators::IntTensorValues(
          *ctx.Input<framework::Tensor>("AxisTensor"), "concat",
          "AxisTensor")[0];
    }
    const int a = operators::NormalizeAxis(axis, out->rank(), "concat", "axis");
    const int64_t outer = framework::Product(out->dims(), 0, a);

    std::vector<const framework::Tensor*> inputs;
    for (const framework::Tensor* x : ctx.MultiInput<framework::Tensor>("X")) {
      if (x->numel() > 0) inputs.push_back(x);
    }
    MkldnnContext& mk = PrepareMkldnn(ctx);
    KeyBuilder key("concat", ctx);
    key.Add(outer);
    for (const framework::Tensor* x : inputs) key.Add(x->numel() / outer);
    auto concat = mk.Primitive<ConcatPrimitive>(key.str(), [&] {
      auto p = std::make_shared<ConcatPrimitive>();
      std::vector<dnnl::memory::desc> srcs;
      for (const framework::Tensor* x : inputs) {
        srcs.push_back(PlainMd({outer, x->numel() / outer}));
      }
      p->pd = dnnl::concat::primitive_desc(
          PlainMd({outer, out->numel() / outer}),
          /*concat_dimension=*/1, srcs, mk.engine());
      p->prim = dnnl::concat(p->pd);
      return p;
    });
    if (!concat) {
      RunPlainKernel<T>(ctx);
      return;
    }
    const dnnl::engine& engine = mk.engine();
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_DST, UserMemory(concat->pd.dst_desc(), engine, o)}};
    for (size_t i = 0; i < inputs.size(); ++i) {
      args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)] =
          UserMemory(concat->pd.src_desc(static_cast<int>(i)), engine,
                     inputs[i]->data<T>());
    }
    concat->prim.execute(mk.stream(), args);
    mk.stream().wait();
  }
};

}  // namespace
}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(concat,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnConcatKernel<float>);
