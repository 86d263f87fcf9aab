// batch_norm with oneDNN's batch normalization, in inference form (the
// running statistics: is_test without trainable_statistics, or
// use_global_stats): Y = (X - Mean) / sqrt(Variance + epsilon) * Scale +
// Bias, in X's layout, so a batch_norm the passes could not fold (one not
// after a convolution, or any with the passes off) does not convert an
// MKLDNN layout to plain and back. Training-mode statistics, empty inputs
// and ranks oneDNN does not take run the PLAIN kernel.
#include <memory>
#include <string>
#include <unordered_map>

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
    auto* y = ctx.Output<framework::Tensor>("Y");
    const bool running_stats = (ctx.Attr<bool>("is_test") &&
                                !ctx.Attr<bool>("trainable_statistics")) ||
                               ctx.Attr<bool>("use_global_stats");
    const int rank = x->rank();
    if (!running_stats || x->numel() == 0 || rank < 2 || rank > 5) {
      RunPlainKernel<T>(ctx);
      return;
    }
    const std::string layout = ctx.Attr<std::string>("data_layout");
    const bool channel_last = layout == "NHWC" || layout == "NDHWC";
    const Dims ncx = ChannelFirstDims(x->dims(), channel_last);
    for (const char* slot : {"Scale", "Bias", "Mean", "Variance"}) {
      if (ctx.Input<framework::Tensor>(slot)->numel() != ncx[1]) {
        RunPlainKernel<T>(ctx);  // it reports the mismatch
        return;
      }
    }
    MkldnnContext& mk = PrepareMkldnn(ctx);
    for (const char* slot : {"Scale", "Bias", "Mean", "Variance"}) {
      MakeInputPlain(ctx, slot);
    }
    const dnnl::memory::desc plain = ActivationMd(ncx, channel_last);
    const dnnl::memory::desc src_md = StoredMd(ctx, "X", plain);
    const float epsilon = ctx.Attr<float>("epsilon");
    KeyBuilder key("batch_norm", ctx);
    key.Add(src_md).Add(epsilon);
    auto bn = mk.Primitive<BatchNormPrimitive>(key.str(), [&] {
      auto p = std::make_shared<BatchNormPrimitive>();
      dnnl::batch_normalization_forward::desc desc(
          dnnl::prop_kind::forward_inference, src_md, epsilon,
          dnnl::normalization_flags::use_global_stats |
              dnnl::normalization_flags::use_scale |
              dnnl::normalization_flags::use_shift);
      p->pd =
          dnnl::batch_normalization_forward::primitive_desc(desc, mk.engine());
      if (IsSlowImplementation(p->pd)) {
        return std::shared_ptr<BatchNormPrimitive>();
      }
      p->prim = dnnl::batch_normalization_forward(p->pd);
      return p;
    });
    if (!bn) {
      RunPlainKernel<T>(ctx);
      return;
    }
    const dnnl::memory::desc channels = PlainMd({ncx[1]});
    auto per_channel = [&](const char* slot) {
      return UserMemory(channels, mk.engine(),
                        ctx.Input<framework::Tensor>(slot)->data<T>());
    };
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, UserMemory(src_md, mk.engine(), x->data<T>())},
        {DNNL_ARG_MEAN, per_channel("Mean")},
        {DNNL_ARG_VARIANCE, per_channel("Variance")},
        {DNNL_ARG_SCALE, per_channel("Scale")},
        {DNNL_ARG_SHIFT, per_channel("Bias")}};
    // Y takes X's layout (the same tensor's, when it is made for `plain`).
    args[DNNL_ARG_DST] =
        OutputMemory<T>(ctx, &mk, y, LayoutFor(*x, plain), src_md);
    RunPrimitive(bn->prim, mk.stream(), args);
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
