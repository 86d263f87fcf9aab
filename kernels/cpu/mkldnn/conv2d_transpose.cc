// conv2d_transpose with oneDNN's deconvolution (spec §2.4). Input pixel i
// feeds output pixels i * stride - pad_begin + tap * dilation, as in
// Paddle; output_size / output_padding add up to stride - 1 trailing
// pixels, which oneDNN's size check (truncating, like Paddle's) accepts
// with the real end padding. Paddle's filter [Cin, Cout / groups, KH, KW]
// is oneDNN's iohw (giohw per group). Weights of model parameters are
// reordered once and cached by address.
#include <algorithm>
#include <memory>
#include <unordered_map>

#include "framework/kernel_registry.h"
#include "kernels/cpu/mkldnn/mkldnn_helper.h"
#include "operators/conv_transpose_shape.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

struct DeconvPrimitive {
  dnnl::deconvolution_forward::primitive_desc pd;
  dnnl::deconvolution_forward prim;
  dnnl::memory::desc user_weights_md;
  std::shared_ptr<const MkldnnLayout> dst_layout;  // null: dst is plain
  // Out += Bias, in place, with Bias [1, M, 1, 1] in the output's layout:
  // oneDNN 2.6's deconvolutions with a bias (argument or post-op) run
  // 2-5x slower than without plus this pass.
  dnnl::binary add_bias;
  dnnl::memory::desc bias_md;
};

template <typename T>
class MkldnnConv2dTransposeKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* input = ctx.Input<framework::Tensor>("Input");
    const auto* filter = ctx.Input<framework::Tensor>("Filter");
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    auto* output = ctx.Output<framework::Tensor>("Output");
    const operators::Conv2DGeometry g = operators::ResolveConv2DTranspose(
        ctx.op(), input->dims(), filter->dims());
    if (input->numel() == 0 || filter->numel() == 0 || g.pad.top < 0 ||
        g.pad.bottom < 0 || g.pad.left < 0 || g.pad.right < 0 ||
        (bias != nullptr && bias->numel() != g.out_channels)) {
      RunPlainKernel<T>(ctx);
      return;
    }
    MkldnnContext& mk = PrepareMkldnn(ctx);
    const Dims src_dims = {g.batch, g.in_channels, g.in_h, g.in_w};
    const Dims dst_dims = {g.batch, g.out_channels, g.out_h, g.out_w};
    const dnnl::memory::desc src_stored =
        StoredMd(ctx, "Input", ActivationMd(src_dims, g.channel_last));
    const bool with_bias = bias != nullptr;
    KeyBuilder key("conv2d_transpose", ctx);
    key.Add(input->dims())
        .Add(filter->dims())
        .Add(output->dims())
        .Add(g.groups)
        .Add(g.channel_last)
        .Add(std::vector<int64_t>{g.stride_h, g.stride_w, g.dilation_h,
                                  g.dilation_w, g.pad.top, g.pad.bottom,
                                  g.pad.left, g.pad.right})
        .Add(with_bias);
    auto deconv = mk.Primitive<DeconvPrimitive>(key.str(), [&] {
      auto p = std::make_shared<DeconvPrimitive>();
      const int64_t cin_g = g.in_channels / g.groups;
      const int64_t cout_g = g.out_channels / g.groups;
      Dims weights_dims;
      dnnl::memory::format_tag user_tag;
      if (g.groups == 1) {
        weights_dims = {cout_g, cin_g, g.kernel_h, g.kernel_w};
        user_tag = dnnl::memory::format_tag::iohw;
      } else {
        weights_dims = {g.groups, cout_g, cin_g, g.kernel_h, g.kernel_w};
        user_tag = dnnl::memory::format_tag::giohw;
      }
      const auto f32 = dnnl::memory::data_type::f32;
      p->user_weights_md = dnnl::memory::desc(weights_dims, f32, user_tag);
      const dnnl::memory::desc weights_any(weights_dims, f32,
                                           dnnl::memory::format_tag::any);
      // Blocked outputs pad channels to the block (16): for few output
      // channels (a detector's 1-channel map) that multiplies the work,
      // so those are written plain.
      const dnnl::memory::desc dst_md =
          g.out_channels < 16
              ? ActivationMd(dst_dims, g.channel_last)
              : dnnl::memory::desc(dst_dims, f32,
                                   dnnl::memory::format_tag::any);
      dnnl::deconvolution_forward::desc desc(
          dnnl::prop_kind::forward_inference,
          dnnl::algorithm::deconvolution_direct,
          dnnl::memory::desc(src_dims, f32, dnnl::memory::format_tag::any),
          weights_any, dst_md, {g.stride_h, g.stride_w},
          {g.dilation_h - 1, g.dilation_w - 1}, {g.pad.top, g.pad.left},
          {g.pad.bottom, g.pad.right});
      p->pd = dnnl::deconvolution_forward::primitive_desc(
          desc, UserScratchpadAttr(), mk.engine());
      if (IsSlowImplementation(p->pd))
        return std::shared_ptr<DeconvPrimitive>();
      p->prim = dnnl::deconvolution_forward(p->pd);
      if (with_bias) {
        const dnnl::memory::desc out_md = p->pd.dst_desc();
        p->bias_md = SameLayoutFor(out_md, {1, g.out_channels, 1, 1});
        if (p->bias_md.is_zero()) return std::shared_ptr<DeconvPrimitive>();
        dnnl::binary::primitive_desc add(
            dnnl::binary::desc(dnnl::algorithm::binary_add, out_md, p->bias_md,
                               out_md),
            mk.engine());
        if (IsSlowImplementation(add)) {
          return std::shared_ptr<DeconvPrimitive>();
        }
        p->add_bias = dnnl::binary(add);
      }
      p->dst_layout =
          MakeLayout(p->pd.dst_desc(), ActivationMd(dst_dims, g.channel_last),
                     mk.engine());
      return p;
    });
    if (!deconv) {
      RunPlainKernel<T>(ctx);
      return;
    }

    const auto weights = PrepareWeights(
        ctx, &mk, "Filter", deconv->user_weights_md, deconv->pd.weights_desc());
    // The bias in the output's layout, made once for model weights.
    std::shared_ptr<dnnl::memory> bias_mem;
    if (with_bias) {
      bias_mem =
          PrepareWeights(ctx, &mk, "Bias", PlainMd({1, g.out_channels, 1, 1}),
                         deconv->bias_md);
    }
    if (!weights || (with_bias && !bias_mem)) {
      RunPlainKernel<T>(ctx);
      return;
    }
    const dnnl::memory dst = OutputMemory<T>(
        ctx, &mk, output, deconv->dst_layout, deconv->pd.dst_desc());
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC,
         InputMemory(&mk, 0, *input, src_stored, deconv->pd.src_desc())},
        {DNNL_ARG_WEIGHTS, *weights},
        {DNNL_ARG_DST, dst}};
    ExecuteWithScratchpad(&mk, deconv->pd, deconv->prim, &args);
    if (with_bias) {
      deconv->add_bias.execute(mk.stream(), {{DNNL_ARG_SRC_0, dst},
                                             {DNNL_ARG_SRC_1, *bias_mem},
                                             {DNNL_ARG_DST, dst}});
      mk.stream().wait();
    }
  }
};

}  // namespace
}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    conv2d_transpose,
    MKLDNN,
    CPUPlace,
    paddle_lite::kernels::mkldnn::MkldnnConv2dTransposeKernel<float>);
