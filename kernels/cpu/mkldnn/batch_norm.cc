// batch_norm with oneDNN, inference form only (spec §4.1): with running
// statistics Y = Scale * (X - Mean) / sqrt(Variance + epsilon) + Bias.
// Batch statistics (training mode) go to the PLAIN kernel.
#include <memory>
#include <string>

#include "framework/kernel_registry.h"
#include "kernels/cpu/mkldnn/mkldnn_helper.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

struct BatchNormPrimitive {
  dnnl::batch_normalization_forward::primitive_desc pd;
  dnnl::batch_normalization_forward prim;
};

template <typename T>
class MkldnnBatchNormKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto* scale = ctx.Input<framework::Tensor>("Scale");
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    const auto* mean = ctx.Input<framework::Tensor>("Mean");
    const auto* variance = ctx.Input<framework::Tensor>("Variance");
    auto* y = ctx.Output<framework::Tensor>("Y");
    const bool running_stats = (ctx.Attr<bool>("is_test") &&
                                !ctx.Attr<bool>("trainable_statistics")) ||
                               ctx.Attr<bool>("use_global_stats");
    const auto layout = ctx.Attr<std::string>("data_layout");
    const bool channel_last = layout == "NHWC" || layout == "NDHWC";
    const int rank = x->rank();
    // oneDNN normalizes 2-D to 5-D data.
    if (!running_stats || rank < 2 || rank > 5 || x->numel() == 0 ||
        mean == nullptr || variance == nullptr) {
      RunPlainKernel<T>(ctx);
      return;
    }
    const Dims ncx = ChannelFirstDims(x->dims(), channel_last);
    T* out = y->mutable_data<T>(ctx.GetPlace());
    const float epsilon = ctx.Attr<float>("epsilon");

    MkldnnContext& mk = PrepareMkldnn(ctx);
    KeyBuilder key("batch_norm", ctx);
    key.Add(ncx).Add(channel_last).Add(epsilon);
    auto bn = mk.Primitive<BatchNormPrimitive>(key.str(), [&] {
      auto p = std::make_shared<BatchNormPrimitive>();
      const dnnl::memory::desc data_md = ActivationMd(ncx, channel_last);
      dnnl::batch_normalization_forward::desc desc(
          dnnl::prop_kind::forward_inference, data_md, epsilon,
          dnnl::normalization_flags::use_global_stats |
              dnnl::normalization_flags::use_scale |
              dnnl::normalization_flags::use_shift);
      p->pd =
          dnnl::batch_normalization_forward::primitive_desc(desc, mk.engine());
      p->prim = dnnl::batch_normalization_forward(p->pd);
      return p;
    });
    if (!bn) {
      RunPlainKernel<T>(ctx);
      return;
    }
    const dnnl::engine& engine = mk.engine();
    const dnnl::memory::desc channel_md = PlainMd({ncx[1]});
    bn->prim.execute(
        mk.stream(),
        {{DNNL_ARG_SRC, UserMemory(bn->pd.src_desc(), engine, x->data<T>())},
         {DNNL_ARG_MEAN, UserMemory(channel_md, engine, mean->data<T>())},
         {DNNL_ARG_VARIANCE,
          UserMemory(channel_md, engine, variance->data<T>())},
         {DNNL_ARG_SCALE, UserMemory(channel_md, engine, scale->data<T>())},
         {DNNL_ARG_SHIFT, UserMemory(channel_md, engine, bias->data<T>())},
         {DNNL_ARG_DST, UserMemory(bn->pd.dst_desc(), engine, out)}});
    mk.stream().wait();
  }
};

}  // namespace
}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(batch_norm,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnBatchNormKernel<float>);
