// softmax with oneDNN: X viewed as [outer, n, inner] with the softmax over
// the middle dim, so one primitive serves every rank and axis.
#include <memory>

#include "framework/kernel_registry.h"
#include "kernels/cpu/mkldnn/mkldnn_helper.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

constexpr int64_t kSmallSoftmaxElements = 4096;

struct SoftmaxPrimitive {
  dnnl::softmax_forward::primitive_desc pd;
  dnnl::softmax_forward prim;
};

template <typename T>
class MkldnnSoftmaxKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    MakeInputsPlain(ctx);  // reads its operands as plain arrays
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const framework::DDim& dims = x->dims();
    const int rank = static_cast<int>(dims.size());
    // A 0-D softmax is 1 (PLAIN knows that rule).
    if (rank == 0 || x->numel() == 0) {
      RunPlainKernel<T>(ctx);
      return;
    }
    int axis = ctx.Attr<int>("axis");
    if (axis < 0) axis += rank;
    const Dims view = {framework::Product(dims, 0, axis), dims[axis],
                       framework::Product(dims, axis + 1, rank)};
    // A small softmax takes the PLAIN kernel microseconds, where oneDNN
    // makes a primitive for each shape (0.2 ms: the OCR classifier's [batch,
    // 2] made one per batch size).
    if (x->numel() < kSmallSoftmaxElements) {
      RunPlainKernel<T>(ctx);
      return;
    }
    T* o = out->mutable_data<T>(ctx.GetPlace());

    MkldnnContext& mk = PrepareMkldnn(ctx);
    KeyBuilder key("softmax", ctx);
    key.Add(view);
    auto softmax = mk.Primitive<SoftmaxPrimitive>(key.str(), [&] {
      auto p = std::make_shared<SoftmaxPrimitive>();
      dnnl::softmax_forward::desc desc(dnnl::prop_kind::forward_inference,
                                       PlainMd(view), /*softmax_axis=*/1);
      p->pd = dnnl::softmax_forward::primitive_desc(desc, mk.engine());
      if (IsSlowImplementation(p->pd))
        return std::shared_ptr<SoftmaxPrimitive>();
      p->prim = dnnl::softmax_forward(p->pd);
      return p;
    });
    if (!softmax) {
      RunPlainKernel<T>(ctx);
      return;
    }
    const dnnl::engine& engine = mk.engine();
    RunPrimitive(
        softmax->prim, mk.stream(),
        {{DNNL_ARG_SRC,
          UserMemory(softmax->pd.src_desc(), engine, x->data<T>())},
         {DNNL_ARG_DST, UserMemory(softmax->pd.dst_desc(), engine, o)}});
    mk.stream().wait();
  }
};

}  // namespace
}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(softmax,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnSoftmaxKernel<float>);
