// conv2d_transpose with oneDNN's deconvolution (spec §2.4). Input pixel i
// feeds output pixels i * stride - pad_begin + tap * dilation, as in
// Paddle; output_size / output_padding add up to stride - 1 trailing
// pixels, which oneDNN's size check (truncating, like Paddle's) accepts
// with the real end padding. Paddle's filter [Cin, Cout / groups, KH, KW]
// is oneDNN's iohw (giohw per group). Weights of model parameters are
// reordered once and cached by address.
//
// A deconvolution whose kernel equals its stride (no padding, dilation 1,
// one group; the 2x upsampling heads of detectors) maps every input pixel
// to its own KH x KW block of output pixels: a matrix product of the
// channel-last input [pixels, Cin] with the filter [Cin, KH * KW * Cout]
// (see PixelBlockDeconv). oneDNN runs that 2-3x faster than its
// deconvolution, whose blocked layouts pad few channels to 16, and writes
// the output channel-last with bias and activation applied. Where our own
// loops run (own_conv_util.h) the product is theirs instead: each input
// row times the filter's slice for one kernel row is one output row
// (RunOwnPixelBlock), and nothing is made per input size.
#include <algorithm>
#include <memory>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "framework/kernel_registry.h"
#include "kernels/cpu/mkldnn/mkldnn_helper.h"
#include "kernels/cpu/mkldnn/own_conv_util.h"
#include "kernels/cpu/mkldnn/pixel_block_util.h"
#include "kernels/cpu/mkldnn/pointwise_conv_util.h"
#include "operators/conv_transpose_shape.h"
#include "operators/fused_activation.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

struct DeconvPrimitive {
  dnnl::deconvolution_forward::primitive_desc pd;
  dnnl::deconvolution_forward prim;
  dnnl::memory::desc user_weights_md;
  std::shared_ptr<const MkldnnLayout> dst_layout;  // null: dst is plain
  // Out += Bias, in place, with Bias [1, M, 1, 1] in the output's layout
  // (then the activation, as the binary's post-op): oneDNN 2.6's
  // deconvolutions with a bias (argument or post-op) run 2-5x slower than
  // without plus this pass.
  dnnl::binary add_bias;
  dnnl::memory::desc bias_md;
};

/// A pixel-block deconvolution as one oneDNN matmul. Rows form: the input
/// channel-last viewed as [N * H, 1, W, Cin] times the filter as
/// [1, KH, Cin, KW * Cout] (columns in (kw, c) order) is
/// [N * H, KH, W, KW * Cout], which is the output channel-last, written in
/// place. Its columns must fill the matmul's vectors; for narrower ones (a
/// 1-channel map) the flat form computes [N * H * W, Cin] times
/// [Cin, KH * KW * Cout] into scratch and a reorder moves each pixel's
/// block into place.
struct PixelBlockDeconv {
  bool rows_form = true;
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul prim;
  dnnl::memory::desc src_nhwc;  // the input, channel-last [N, C, H, W]
  dnnl::memory::desc dst_nhwc;  // the output, channel-last [N, M, OH, OW]
  std::shared_ptr<const MkldnnLayout> dst_layout;  // null: dst is plain
  // Flat form: the product viewed as [N, H, W, KH, KW, M] and the output
  // as the same, and the reorder between them.
  dnnl::memory::desc product_6d;
  dnnl::memory::desc output_6d;
  dnnl::reorder to_output;
};

/// Narrowest rows-form column count: one AVX-512 vector of floats.
constexpr int64_t kMinRowsFormColumns = 16;

std::shared_ptr<PixelBlockDeconv> MakePixelBlockDeconv(
    const operators::Conv2DGeometry& g,
    bool with_bias,
    const dnnl::post_ops& post_ops,
    const dnnl::engine& engine) {
  const int64_t n = g.batch, c = g.in_channels, h = g.in_h, w = g.in_w;
  const int64_t m = g.out_channels, kh = g.kernel_h, kw = g.kernel_w;
  auto p = std::make_shared<PixelBlockDeconv>();
  p->rows_form = kw * m >= kMinRowsFormColumns;
  p->src_nhwc = ActivationMd({n, c, h, w}, /*channel_last=*/true);
  p->dst_nhwc = ActivationMd({n, m, g.out_h, g.out_w}, /*channel_last=*/true);
  dnnl::memory::desc src, weights, bias, dst;
  if (p->rows_form) {
    src = PlainMd({n * h, 1, w, c});
    weights = PlainMd({1, kh, c, kw * m});
    bias = PlainMd({1, 1, 1, kw * m});
    dst = PlainMd({n * h, kh, w, kw * m});
  } else {
    src = PlainMd({n * h * w, c});
    weights = PlainMd({c, kh * kw * m});
    bias = PlainMd({1, kh * kw * m});
    dst = PlainMd({n * h * w, kh * kw * m});
    const Dims dims6 = {n, h, w, kh, kw, m};
    p->product_6d = PlainMd(dims6);
    p->output_6d = dnnl::memory::desc(
        dims6, dnnl::memory::data_type::f32,
        Dims{h * kh * w * kw * m, kh * w * kw * m, kw * m, w * kw * m, m, 1});
    p->to_output = dnnl::reorder(dnnl::reorder::primitive_desc(
        engine, p->product_6d, engine, p->output_6d));
  }
  dnnl::primitive_attr attr = UserScratchpadAttr();
  attr.set_post_ops(post_ops);
  p->pd = dnnl::matmul::primitive_desc(
      dnnl::matmul::desc(src, weights, with_bias ? bias : dnnl::memory::desc(),
                         dst),
      attr, engine);
  if (IsSlowImplementation(p->pd)) return nullptr;
  p->prim = dnnl::matmul(p->pd);
  p->dst_layout = MakeLayout(
      p->dst_nhwc, ActivationMd({n, m, g.out_h, g.out_w}, g.channel_last),
      engine);
  return p;
}

/// Paddle's filter [Cin, M, KH, KW] as the matmul's weights: rows form
/// [KH][Cin][KW][M], flat form [Cin][KH][KW][M]. Cached per filter.
std::shared_ptr<dnnl::memory> PixelBlockWeights(
    const framework::ExecutionContext& ctx,
    MkldnnContext* mk,
    const operators::Conv2DGeometry& g,
    const PixelBlockDeconv& deconv) {
  const auto* filter = ctx.Input<framework::Tensor>("Filter");
  KeyBuilder key("pixel_block_weights");
  key.Add(static_cast<int64_t>(reinterpret_cast<uintptr_t>(filter->raw_data())))
      .Add(filter->dims())
      .Add(deconv.rows_form);
  return mk->Weights(key.str(), [&] {
    auto made =
        std::make_shared<dnnl::memory>(deconv.pd.weights_desc(), mk->engine());
    const float* f = filter->data<float>();
    float* to = static_cast<float*>(made->get_data_handle());
    const int64_t c = g.in_channels, m = g.out_channels;
    const int64_t kh = g.kernel_h, kw = g.kernel_w;
    for (int64_t ic = 0; ic < c; ++ic) {
      for (int64_t oc = 0; oc < m; ++oc) {
        for (int64_t y = 0; y < kh; ++y) {
          for (int64_t x = 0; x < kw; ++x) {
            const int64_t at = deconv.rows_form
                                   ? ((y * c + ic) * kw + x) * m + oc
                                   : ((ic * kh + y) * kw + x) * m + oc;
            to[at] = f[((ic * m + oc) * kh + y) * kw + x];
          }
        }
      }
    }
    return made;
  });
}

/// The bias [M] repeated for every column of the matmul ((kh,) kw, m).
/// Cached per bias.
std::shared_ptr<dnnl::memory> PixelBlockBias(
    const framework::ExecutionContext& ctx,
    MkldnnContext* mk,
    const PixelBlockDeconv& deconv) {
  const auto* bias = ctx.Input<framework::Tensor>("Bias");
  const dnnl::memory::desc md = deconv.pd.bias_desc();
  KeyBuilder key("pixel_block_bias");
  key.Add(static_cast<int64_t>(reinterpret_cast<uintptr_t>(bias->raw_data())))
      .Add(md);
  return mk->Weights(key.str(), [&] {
    auto made = std::make_shared<dnnl::memory>(md, mk->engine());
    const float* b = bias->data<float>();
    const int64_t m = bias->numel();
    float* to = static_cast<float*>(made->get_data_handle());
    const int64_t columns = static_cast<int64_t>(md.get_size() / sizeof(float));
    for (int64_t i = 0; i < columns; ++i) to[i] = b[i % m];
    return made;
  });
}

/// What a deconvolution op keeps between runs (kernel_state) on the
/// pixel-block path: the matmul (or our loops' call) and weights for the
/// input dims it last saw.
struct PixelBlockState {
  framework::DDim input_dims;
  const void* filter = nullptr;
  const void* bias = nullptr;
  int threads = 0;
  dnnl::memory::desc src_plain;
  std::shared_ptr<PixelBlockDeconv> deconv;  // null: our own loops
  std::shared_ptr<dnnl::memory> weights;
  std::shared_ptr<dnnl::memory> bias_mem;  // null: no bias
  // Our own loops' (deconv null): the geometry, the activation and the
  // output's layout (null: plain, an NHWC program's).
  operators::Conv2DGeometry geometry;
  operators::FusedActivation activation;
  std::shared_ptr<const MkldnnLayout> own_layout;
};

template <typename T>
class MkldnnConv2dTransposeKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* input = ctx.Input<framework::Tensor>("Input");
    const auto* filter = ctx.Input<framework::Tensor>("Filter");
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    auto* output = ctx.Output<framework::Tensor>("Output");
    if (const auto* state = KeptState<PixelBlockState>(ctx)) {
      const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
      if (state->input_dims == input->dims() &&
          state->filter == filter->raw_data() &&
          state->bias == (bias ? bias->raw_data() : nullptr) &&
          state->threads == dev.num_threads()) {
        MkldnnContext& mk = PrepareMkldnn(ctx);
        const dnnl::memory::desc src_stored =
            StoredMd(ctx, "Input", state->src_plain);
        if (state->deconv == nullptr) {
          RunOwnPixelBlock(ctx, &mk, *state, src_stored);
        } else {
          RunPixelBlock(ctx, &mk, *state, src_stored);
        }
        return;
      }
    }
    const operators::Conv2DGeometry g = operators::ResolveConv2DTranspose(
        ctx.op(), input->dims(), filter->dims());
    if (input->numel() == 0 || filter->numel() == 0 || g.pad.top < 0 ||
        g.pad.bottom < 0 || g.pad.left < 0 || g.pad.right < 0 ||
        (bias != nullptr && bias->numel() != g.out_channels)) {
      RunPlainKernel<T>(ctx);
      return;
    }
    // Read once per op (ConvAttrsOf), as conv2d's kernel does.
    const operators::FusedActivation& activation =
        operators::ConvAttrsOf(ctx.op()).activation;
    dnnl::post_ops post_ops;
    if (!AppendFusedActivation(activation, &post_ops)) {
      RunPlainKernel<T>(ctx);
      return;
    }
    MkldnnContext& mk = PrepareMkldnn(ctx);
    MakeInputPlain(ctx, "Filter");
    MakeInputPlain(ctx, "Bias");
    const Dims src_dims = {g.batch, g.in_channels, g.in_h, g.in_w};
    const Dims dst_dims = {g.batch, g.out_channels, g.out_h, g.out_w};
    const dnnl::memory::desc src_plain = ActivationMd(src_dims, g.channel_last);
    const dnnl::memory::desc src_stored = StoredMd(ctx, "Input", src_plain);
    const bool with_bias = bias != nullptr;
    // The pixel-block path rearranges the filter once: model weights only.
    if (IsPixelBlock(g) && std::is_same<T, float>::value &&
        IsModelWeight(ctx, "Filter") &&
        (!with_bias || IsModelWeight(ctx, "Bias"))) {
      auto new_state = [&] {
        auto state = std::make_shared<PixelBlockState>();
        state->input_dims = input->dims();
        state->filter = filter->raw_data();
        state->bias = with_bias ? bias->raw_data() : nullptr;
        state->threads =
            ctx.device_context<platform::CPUDeviceContext>().num_threads();
        state->src_plain = src_plain;
        return state;
      };
      if (OwnConvLoopsAvailable() && OwnConvLoopsFuse(activation)) {
        auto state = new_state();
        state->weights = OwnPixelBlockWeights(&mk, *filter, g);
        if (with_bias) {
          state->bias_mem =
              OwnPixelBlockBias(&mk, *bias, OwnPixelBlockColumns(g));
        }
        state->geometry = g;
        state->activation = activation;
        if (!g.channel_last) state->own_layout = mk.ChannelLastLayout(dst_dims);
        RunOwnPixelBlock(ctx, &mk, *state, src_stored);
        KeepState(ctx, std::move(state));
        return;
      }
      KeyBuilder key("pixel_block_deconv", ctx);
      key.Add(activation)
          .Add(input->dims())
          .Add(filter->dims())
          .Add(g.channel_last)
          .Add(with_bias);
      auto deconv = mk.Primitive<PixelBlockDeconv>(key.str(), [&] {
        return MakePixelBlockDeconv(g, with_bias, post_ops, mk.engine());
      });
      if (deconv) {
        auto state = new_state();
        state->deconv = deconv;
        state->weights = PixelBlockWeights(ctx, &mk, g, *deconv);
        if (with_bias) state->bias_mem = PixelBlockBias(ctx, &mk, *deconv);
        if (state->weights && (!with_bias || state->bias_mem)) {
          RunPixelBlock(ctx, &mk, *state, src_stored);
          KeepState(ctx, std::move(state));
          return;
        }
      }
    }

    KeyBuilder key("conv2d_transpose", ctx);
    key.Add(activation)
        .Add(input->dims())
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
      // The activation follows the bias, so without one it is the
      // deconvolution's post-op, with one the bias addition's.
      dnnl::primitive_attr attr = UserScratchpadAttr();
      if (!with_bias) attr.set_post_ops(post_ops);
      p->pd =
          dnnl::deconvolution_forward::primitive_desc(desc, attr, mk.engine());
      if (IsSlowImplementation(p->pd))
        return std::shared_ptr<DeconvPrimitive>();
      p->prim = dnnl::deconvolution_forward(p->pd);
      if (with_bias) {
        const dnnl::memory::desc out_md = p->pd.dst_desc();
        p->bias_md = SameLayoutFor(out_md, {1, g.out_channels, 1, 1});
        if (p->bias_md.is_zero()) return std::shared_ptr<DeconvPrimitive>();
        dnnl::primitive_attr add_attr;
        add_attr.set_post_ops(post_ops);
        dnnl::binary::primitive_desc add(
            dnnl::binary::desc(dnnl::algorithm::binary_add, out_md, p->bias_md,
                               out_md),
            add_attr, mk.engine());
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
      RunPrimitive(deconv->add_bias, mk.stream(),
                   {{DNNL_ARG_SRC_0, dst},
                    {DNNL_ARG_SRC_1, *bias_mem},
                    {DNNL_ARG_DST, dst}});
      mk.stream().wait();
    }
  }

 private:
  /// A pixel-block deconvolution on our 1x1 loops: input row (n, y) times
  /// kernel row a's filter [Cin] x [KW * M] is output row y * KH + a, its
  /// pixels' blocks side by side as the channel-last output holds them.
  /// Narrow ones compute each input row's whole blocks into scratch (one
  /// row of KH * KW * M floats per pixel, per thread) and copy them out.
  static void RunOwnPixelBlock(const framework::ExecutionContext& ctx,
                               MkldnnContext* mk,
                               const PixelBlockState& state,
                               const dnnl::memory::desc& src_stored) {
    const operators::Conv2DGeometry& g = state.geometry;
    const auto* input = ctx.Input<framework::Tensor>("Input");
    auto* output = ctx.Output<framework::Tensor>("Output");
    output->set_opaque_layout(state.own_layout);
    float* out = output->mutable_data<float>(ctx.GetPlace());
    if (framework::MakingOnly()) return;
    const dnnl::memory src = InputMemory(
        mk, 0, *input, src_stored,
        ActivationMd({g.batch, g.in_channels, g.in_h, g.in_w}, true));
    const auto* in = static_cast<const float*>(src.get_data_handle());
    OwnPixelBlock block;
    block.geometry = g;
    block.packed_filter =
        static_cast<const float*>(state.weights->get_data_handle());
    block.bias =
        state.bias_mem != nullptr
            ? static_cast<const float*>(state.bias_mem->get_data_handle())
            : nullptr;
    block.activation = state.activation;
    block.multiply = PointwiseRowsFor(state.activation);
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    const int64_t rows = g.batch * g.in_h;
    const int64_t in_row = g.in_w * g.in_channels;
    const int64_t out_rows = g.kernel_h * g.out_w * g.out_channels;
    // Cycles of an input row at about 16 multiply-adds a cycle.
    const double cost = static_cast<double>(g.in_w) *
                        static_cast<double>(g.in_channels + 4) *
                        static_cast<double>(g.kernel_h * g.kernel_w *
                                            g.out_channels) /
                        16.0;
    // Narrow blocks go through scratch: one part per thread.
    const int64_t parts = std::min<int64_t>(dev.num_threads(), rows);
    const int64_t scratch_floats = OwnPixelBlockRowScratch(g);
    float* scratch =
        scratch_floats == 0
            ? nullptr
            : static_cast<float*>(mk->ScratchBuffer(
                  MkldnnContext::kOwnLoopSlot,
                  sizeof(float) * static_cast<size_t>(parts * scratch_floats)));
    dev.ParallelFor(parts, cost * rows / parts, [&](int64_t begin, int64_t end) {
      for (int64_t part = begin; part < end; ++part) {
        float* own = scratch == nullptr ? nullptr
                                        : scratch + part * scratch_floats;
        for (int64_t r = rows * part / parts; r < rows * (part + 1) / parts;
             ++r) {
          RunOwnPixelBlockRow(block, in + r * in_row, out + r * out_rows, own);
        }
      }
    });
  }

  static void RunPixelBlock(const framework::ExecutionContext& ctx,
                            MkldnnContext* mk,
                            const PixelBlockState& state,
                            const dnnl::memory::desc& src_stored) {
    const PixelBlockDeconv& deconv = *state.deconv;
    const auto* input = ctx.Input<framework::Tensor>("Input");
    auto* output = ctx.Output<framework::Tensor>("Output");
    const dnnl::memory src_nhwc =
        InputMemory(mk, 0, *input, src_stored, deconv.src_nhwc);
    const dnnl::memory dst_nhwc =
        OutputMemory<T>(ctx, mk, output, deconv.dst_layout, deconv.dst_nhwc);
    // The matmul's views of the same buffers.
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, UserMemory(deconv.pd.src_desc(), mk->engine(),
                                  src_nhwc.get_data_handle())},
        {DNNL_ARG_WEIGHTS, *state.weights}};
    if (state.bias_mem) args[DNNL_ARG_BIAS] = *state.bias_mem;
    if (deconv.rows_form) {
      args[DNNL_ARG_DST] = UserMemory(deconv.pd.dst_desc(), mk->engine(),
                                      dst_nhwc.get_data_handle());
      ExecuteWithScratchpad(mk, deconv.pd, deconv.prim, &args);
      return;
    }
    const dnnl::memory product = mk->Scratch(1, deconv.pd.dst_desc());
    args[DNNL_ARG_DST] = product;
    ExecuteWithScratchpad(mk, deconv.pd, deconv.prim, &args);
    dnnl::memory from =
        UserMemory(deconv.product_6d, mk->engine(), product.get_data_handle());
    dnnl::memory to =
        UserMemory(deconv.output_6d, mk->engine(), dst_nhwc.get_data_handle());
    RunReorder(deconv.to_output, mk->stream(), from, to);
    mk->stream().wait();
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
