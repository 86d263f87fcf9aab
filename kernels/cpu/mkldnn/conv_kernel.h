// The oneDNN kernel of the 2-D convolution ops conv2d, depthwise_conv2d
// (spec §2.1-2.3) and fused_conv2d (the same followed by the activation
// the graph passes fused into it, run as a oneDNN post-op). Private to
// kernels/cpu/mkldnn (conv2d.cc, depthwise_conv2d.cc and fused_conv2d.cc
// register it).
//
// The primitive picks its formats (format_tag::any): the blocked and
// depthwise kernels it then takes beat the plain-layout GEMM path by 2-5x.
// Its weights are reordered once for model parameters (cached by address
// and layout). Its output stays in the primitive's layout (an MKLDNN
// opaque layout on the tensor: the next MKLDNN kernel reads it as is, the
// executor converts it for any other); its input is reordered only when it
// arrives in another layout.
#pragma once

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>

#include "framework/kernel_registry.h"
#include "kernels/cpu/mkldnn/depthwise_conv_util.h"
#include "kernels/cpu/mkldnn/mkldnn_helper.h"
#include "kernels/cpu/mkldnn/own_conv_util.h"
#include "kernels/cpu/mkldnn/pointwise_conv_util.h"
#include "kernels/cpu/mkldnn/stem_conv_util.h"
#include "kernels/cpu/mkldnn/winograd_conv_util.h"
#include "operators/conv_pool_shape.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

/// A convolution primitive with the descriptors its call needs.
struct ConvPrimitive {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward prim;
  dnnl::memory::desc user_weights_md;
  std::shared_ptr<const MkldnnLayout> dst_layout;  // null: dst is plain
  // Winograd writes blocked layouts only (channels padded to 16): its
  // result goes to scratch and is reordered into the output in
  // `output_md`, channel-last, what the direct kernels write and their
  // readers take. Zero when the primitive writes the output itself.
  dnnl::memory::desc output_md;
  dnnl::reorder to_output;
};

/// What a conv op keeps between runs (ExecutionContext::kernel_state):
/// the primitive and weights it used for the inputs it last saw (their
/// dims and layouts and the thread count: `signature`), so a matching run
/// skips resolving the geometry, the cache keys and lookups; and the whole
/// call when it read Input and ResidualData without a reorder.
struct ConvState {
  InputSignature signature;
  const void* filter = nullptr;
  const void* bias = nullptr;
  /// A primitive's call (conv is set): what running it again needs.
  struct PrimitiveCall {
    dnnl::memory::desc src_plain;
    dnnl::memory::desc dst_plain;
    KeptCall call;  // empty: run through Execute
  };
  // Apart, since a plan keeps a state per conv op and input shape, and
  // most run on our own loops: two descriptors (1.4 KB) in each of those
  // were more than half of a small model's memory per shape.
  std::unique_ptr<PrimitiveCall> primitive;
  std::shared_ptr<ConvPrimitive> conv;
  std::shared_ptr<dnnl::memory> weights;
  // A 1x1, depthwise, stem or Winograd 3x3 convolution run by our own
  // loops (RunPointwiseConv, RunDepthwiseConv, RunStemConv,
  // RunWinogradConv; conv is null then):
  // its packed filter in `weights`, its output's layout (null: plain), the
  // call with the buffers left to fill in (none: a primitive's state).
  std::shared_ptr<const MkldnnLayout> own_layout;
  std::variant<std::monostate,
               PointwiseConv,
               DepthwiseConv,
               StemConv,
               WinogradConv>
      own;
};

/// True for the convolutions run as Winograd (see the kernel): 3x3,
/// stride and dilation 1, one group, and channels enough to amortize the
/// transforms.
inline bool UseWinograd(const operators::Conv2DGeometry& g) {
  return g.kernel_h == 3 && g.kernel_w == 3 && g.stride_h == 1 &&
         g.stride_w == 1 && g.dilation_h == 1 && g.dilation_w == 1 &&
         g.groups == 1 && g.in_channels >= 32 && g.out_channels >= 16;
}

/// Output = Input (*) Filter (+ Bias) with oneDNN; with
/// kFusedActivation, then the op's fuse_activation.
template <typename T, bool kFusedActivation = false>
class MkldnnConv2dKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* input = ctx.Input<framework::Tensor>("Input");
    const auto* filter = ctx.Input<framework::Tensor>("Filter");
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    const auto* residual = ctx.Input<framework::Tensor>("ResidualData");
    // The kept state, if made for these weights (the fast path below
    // reruns it; a new input shape derives from it).
    ConvState* state = KeptState<ConvState>(ctx);
    if (state != nullptr &&
        (state->filter != filter->raw_data() ||
         state->bias != (bias ? bias->raw_data() : nullptr))) {
      state = nullptr;
    }
    if (state != nullptr && state->signature.Matches(ctx, {input, residual})) {
      MkldnnContext& mk = PrepareMkldnn(ctx);
      if (!std::holds_alternative<std::monostate>(state->own)) {
        RunKeptOwn(ctx, &mk, state);
        return;
      }
      ConvState::PrimitiveCall& kept = *state->primitive;
      if (!kept.call) {
        Execute(ctx, &mk, *state->conv, *state->weights,
                StoredMd(ctx, "Input", kept.src_plain), kept.dst_plain);
        return;
      }
      auto* output = ctx.Output<framework::Tensor>("Output");
      output->set_opaque_layout(state->conv->dst_layout);
      T* dst = output->mutable_data<T>(ctx.GetPlace());
      if (residual != nullptr && !framework::MakingOnly()) {
        std::memcpy(dst, residual->raw_data(),
                    state->conv->pd.dst_desc().get_size());
      }
      kept.call.Execute(
          &mk, {{DNNL_ARG_SRC, input->raw_data()}, {DNNL_ARG_DST, dst}});
      return;
    }
    const operators::Conv2DGeometry g =
        operators::ResolveConv2D(ctx.op(), input->dims(), filter->dims());
    // oneDNN needs every dim non-zero and non-negative paddings; the right
    // and bottom paddings may only grow (to where the last window ends) so
    // oneDNN's output-size check matches Paddle's truncating one.
    const int64_t pad_bottom =
        std::max(g.pad.bottom, (g.out_h - 1) * g.stride_h +
                                   (g.kernel_h - 1) * g.dilation_h + 1 -
                                   g.in_h - g.pad.top);
    const int64_t pad_right =
        std::max(g.pad.right, (g.out_w - 1) * g.stride_w +
                                  (g.kernel_w - 1) * g.dilation_w + 1 - g.in_w -
                                  g.pad.left);
    if (input->numel() == 0 || filter->numel() == 0 || g.pad.top < 0 ||
        g.pad.left < 0 || pad_bottom < 0 || pad_right < 0 ||
        (bias != nullptr && bias->numel() != g.out_channels)) {
      RunPlainKernel<T>(ctx);
      return;
    }
    // Read once per op (ConvAttrsOf), not per shape.
    static const operators::FusedActivation kNone;
    const operators::FusedActivation& activation =
        kFusedActivation ? operators::ConvAttrsOf(ctx.op()).activation : kNone;
    if (!AppendFusedActivation(activation, nullptr)) {
      RunPlainKernel<T>(ctx);
      return;
    }
    MkldnnContext& mk = PrepareMkldnn(ctx);
    InputSignature signature(ctx, {input, residual});
    if (state != nullptr && RunDerivedOwn(ctx, &mk, *state, g, activation,
                                          *input, residual, &signature)) {
      return;
    }
    MakeInputPlain(ctx, "Bias");
    const Dims src_dims = {g.batch, g.in_channels, g.in_h, g.in_w};
    const dnnl::memory::desc src_stored =
        StoredMd(ctx, "Input", ActivationMd(src_dims, g.channel_last));
    const bool with_bias = bias != nullptr;
    if (TryPointwise(ctx, &mk, g, activation, src_stored, &signature) ||
        TryDepthwise(ctx, &mk, g, activation, src_stored, &signature) ||
        TryStem(ctx, &mk, g, activation, src_stored, &signature) ||
        TryWinograd(ctx, &mk, g, activation, src_stored, &signature)) {
      return;
    }
    KeyBuilder key("conv2d", ctx);
    key.Add(activation)
        .Add(input->dims())
        .Add(filter->dims())
        .Add(g.groups)
        .Add(g.channel_last)
        .Add(g.stride_h)
        .Add(g.stride_w)
        .Add(g.dilation_h)
        .Add(g.dilation_w)
        .Add(g.pad.top)
        .Add(pad_bottom)
        .Add(g.pad.left)
        .Add(pad_right)
        .Add(with_bias)
        .Add(residual != nullptr)
        .Add(src_stored);
    auto conv = mk.Primitive<ConvPrimitive>(key.str(), [&] {
      // Output = act(conv + bias + residual): oneDNN's sum post-op adds
      // what the output buffer holds, so the residual is put there first.
      dnnl::post_ops post_ops;
      if (residual != nullptr) post_ops.append_sum(1.f);
      AppendFusedActivation(activation, &post_ops);
      auto p = std::make_shared<ConvPrimitive>();
      const auto f32 = dnnl::memory::data_type::f32;
      const Dims dst_dims = {g.batch, g.out_channels, g.out_h, g.out_w};
      Dims weights_dims;
      if (g.groups == 1) {
        weights_dims = {g.out_channels, g.in_channels, g.kernel_h, g.kernel_w};
      } else {
        weights_dims = {g.groups, g.out_channels / g.groups,
                        g.in_channels / g.groups, g.kernel_h, g.kernel_w};
      }
      // Paddle's filter [M, C / groups, KH, KW] is oihw (goihw per group).
      p->user_weights_md = PlainMd(weights_dims);
      const dnnl::memory::desc weights_any(weights_dims, f32,
                                           dnnl::memory::format_tag::any);
      const dnnl::memory::desc bias_md =
          with_bias ? PlainMd({g.out_channels}) : dnnl::memory::desc();
      const dnnl::memory::desc src_any(src_dims, f32,
                                       dnnl::memory::format_tag::any);
      const dnnl::memory::desc dst_any(dst_dims, f32,
                                       dnnl::memory::format_tag::any);
      dnnl::primitive_attr attr = UserScratchpadAttr();
      attr.set_post_ops(post_ops);
      auto make_pd = [&](const dnnl::memory::desc& src_md,
                         dnnl::algorithm algorithm =
                             dnnl::algorithm::convolution_direct) {
        dnnl::convolution_forward::desc desc(
            dnnl::prop_kind::forward_inference, algorithm, src_md, weights_any,
            bias_md, dst_any, {g.stride_h, g.stride_w},
            {g.dilation_h - 1, g.dilation_w - 1}, {g.pad.top, g.pad.left},
            {pad_bottom, pad_right});
        return dnnl::convolution_forward::primitive_desc(desc, attr,
                                                         mk.engine());
      };
      // An image-like input (a few plain channels, a network's first
      // layer) is read as it is: oneDNN's kernel for that beats reordering
      // it first (the reorder costs as much as the convolution).
      bool read_plain = src_stored == ActivationMd(src_dims, g.channel_last) &&
                        g.groups == 1 && g.in_channels <= 4;
      if (read_plain) {
        try {
          p->pd = make_pd(src_stored);
          read_plain = !IsSlowImplementation(p->pd);
        } catch (const dnnl::error&) {
          read_plain = false;
        }
      }
      // 3x3 convolutions over enough channels run as Winograd's F(2x2 or
      // 4x4, 3x3), about twice as fast as the direct kernels (a
      // detector's neck and head spend most of their time there).
      bool winograd = !read_plain && residual == nullptr && UseWinograd(g);
      if (winograd) {
        try {
          p->pd = make_pd(src_any, dnnl::algorithm::convolution_winograd);
        } catch (const dnnl::error&) {
          winograd = false;
        }
      }
      if (!read_plain && !winograd) p->pd = make_pd(src_any);
      if (IsSlowImplementation(p->pd)) return std::shared_ptr<ConvPrimitive>();
      p->prim = dnnl::convolution_forward(p->pd);
      dnnl::memory::desc written = p->pd.dst_desc();
      if (winograd) {
        p->output_md = ActivationMd(dst_dims, /*channel_last=*/true);
        p->to_output = dnnl::reorder(dnnl::reorder::primitive_desc(
            mk.engine(), written, mk.engine(), p->output_md));
        written = p->output_md;
      }
      p->dst_layout = MakeLayout(
          written, ActivationMd(dst_dims, g.channel_last), mk.engine());
      return p;
    });
    if (!conv) {
      RunPlainKernel<T>(ctx);
      return;
    }

    const auto weights = PrepareWeights(
        ctx, &mk, "Filter", conv->user_weights_md, conv->pd.weights_desc());
    if (!weights) {
      RunPlainKernel<T>(ctx);
      return;
    }
    const dnnl::memory::desc dst_plain = ActivationMd(
        {g.batch, g.out_channels, g.out_h, g.out_w}, g.channel_last);
    KeptCall call = Execute(ctx, &mk, *conv, *weights, src_stored, dst_plain);
    if (!signature.Matches(ctx, {input, residual})) call = KeptCall();
    // Only model weights stay put: a computed filter is reordered anew.
    if (IsModelWeight(ctx, "Filter")) {
      auto state = std::make_shared<ConvState>();
      state->signature = std::move(signature);
      state->filter = filter->raw_data();
      state->bias = with_bias ? bias->raw_data() : nullptr;
      state->primitive = std::make_unique<ConvState::PrimitiveCall>();
      state->primitive->src_plain = ActivationMd(src_dims, g.channel_last);
      state->primitive->dst_plain = dst_plain;
      state->primitive->call = std::move(call);
      state->conv = conv;
      state->weights = weights;
      KeepState(ctx, std::move(state));
    }
  }

 private:
  /// A new input shape of an op our own loops ran, `kept` made for the
  /// same filter and bias: its call is the kept one with this shape's
  /// sizes, and its state the kept one's packed filter, when the kind of
  /// input layout is the same (for a 1x1, also whether it reads a
  /// residual, and that residual's layout). Only the sizes depend on the shape,
  /// so this skips what a first call works out again (the layout comparisons,
  /// the checks of each of our loops, the packed filter's lookup): about half
  /// of a small convolution's first call. False, with nothing done,
  /// otherwise.
  static bool RunDerivedOwn(const framework::ExecutionContext& ctx,
                            MkldnnContext* mk,
                            const ConvState& kept,
                            const operators::Conv2DGeometry& g,
                            const operators::FusedActivation& activation,
                            const framework::Tensor& input,
                            const framework::Tensor* residual,
                            InputSignature* signature) {
    if constexpr (!std::is_same<T, float>::value) {
      return false;
    } else {
      if (std::holds_alternative<std::monostate>(kept.own)) return false;
      // Our loops other than the stem's read pixels' channels in a row:
      // those calls were made for input stored channel-last and dense
      // (in_stride == channels; blocked input is not derived).
      const bool channel_last_in = StoredChannelLastDense(
          input, {g.batch, g.in_channels, g.in_h, g.in_w}, g.channel_last);
      decltype(ConvState::own) call = kept.own;
      if (auto* pointwise = std::get_if<PointwiseConv>(&call)) {
        // A residual, if any, read the same way (residual_stride ==
        // out_channels), as the call was made.
        const bool residual_fits =
            residual == nullptr
                ? pointwise->residual_stride == 0
                : pointwise->residual_stride == g.out_channels &&
                      StoredChannelLastDense(
                          *residual,
                          {g.batch, g.out_channels, g.out_h, g.out_w},
                          g.channel_last);
        if (!residual_fits || !channel_last_in ||
            pointwise->in_stride != g.in_channels || !PointwiseGeometry(g)) {
          return false;
        }
        pointwise->pixels = g.batch * g.in_h * g.in_w;
      } else if (residual != nullptr) {  // only 1x1s take one
        return false;
      } else if (auto* depthwise = std::get_if<DepthwiseConv>(&call)) {
        if (!channel_last_in || depthwise->in_stride != g.in_channels) {
          return false;
        }
        SetWindow(g, activation, depthwise);
      } else if (auto* stem = std::get_if<StemConv>(&call)) {
        // Made for plain channel-first input.
        if (input.opaque_layout() != nullptr || g.channel_last) return false;
        SetWindow(g, activation, stem);
      } else if (auto* winograd = std::get_if<WinogradConv>(&call)) {
        if (!channel_last_in || winograd->in_stride != g.in_channels) {
          return false;
        }
        SetImages(g, activation, winograd);
      } else {
        return false;
      }
      auto state = OwnState(ctx, mk, g, signature, kept.weights);
      state->own = std::move(call);
      RunKeptOwn(ctx, mk, state.get());
      KeepState(ctx, std::move(state));
      return true;
    }
  }

  /// Whether `t`, of `dims` (N, C, H, W), is stored channel-last with
  /// nothing between pixels (what our loops that read a pixel's channels
  /// in a row take): plain in an NHWC op, or an MKLDNN layout of exactly
  /// those strides. Read from the descriptor's fields, without making one
  /// to compare.
  static bool StoredChannelLastDense(const framework::Tensor& t,
                                     const std::array<int64_t, 4>& dims,
                                     bool op_channel_last) {
    if (t.opaque_layout() == nullptr) return op_channel_last;
    const MkldnnLayout* layout = MkldnnLayoutOf(t);
    if (layout == nullptr || op_channel_last) return false;
    const dnnl_memory_desc_t& md = layout->md().data;
    if (md.ndims != 4 || md.data_type != dnnl_f32 ||
        md.format_kind != dnnl_blocked || md.offset0 != 0 ||
        md.extra.flags != 0 || md.format_desc.blocking.inner_nblks != 0) {
      return false;
    }
    for (int i = 0; i < 4; ++i) {
      if (md.dims[i] != dims[i] || md.padded_dims[i] != dims[i] ||
          md.padded_offsets[i] != 0) {
        return false;
      }
    }
    const dnnl_dims_t& strides = md.format_desc.blocking.strides;
    return strides[1] == 1 && strides[3] == dims[1] &&
           strides[2] == dims[1] * dims[3] &&
           strides[0] == dims[1] * dims[3] * dims[2];
  }

  /// Runs a 1x1 convolution on channel-last input with our own loops
  /// (pointwise_conv_util.h), which need nothing made per input size, and
  /// keeps its state; false, with nothing done, for any other.
  static bool TryPointwise(const framework::ExecutionContext& ctx,
                           MkldnnContext* mk,
                           const operators::Conv2DGeometry& g,
                           const operators::FusedActivation& activation,
                           const dnnl::memory::desc& src_stored,
                           InputSignature* signature) {
    if constexpr (!std::is_same<T, float>::value) {
      return false;
    } else {
      if (!OwnConvLoopsAvailable() || !PointwiseGeometry(g) ||
          !OwnConvLoopsFuse(activation) || !IsModelWeight(ctx, "Filter")) {
        return false;
      }
      const Dims src_dims = {g.batch, g.in_channels, g.in_h, g.in_w};
      const Dims dst_dims = {g.batch, g.out_channels, g.out_h, g.out_w};
      PointwiseConv call;
      call.in_stride = PixelRowStride(src_stored, src_dims);
      if (call.in_stride == 0) return false;
      if (ctx.Input<framework::Tensor>("ResidualData") != nullptr) {
        call.residual_stride =
            PixelRowStride(StoredMd(ctx, "ResidualData",
                                    ActivationMd(dst_dims, g.channel_last)),
                           dst_dims);
        if (call.residual_stride == 0) return false;
      }
      call.pixels = g.batch * g.in_h * g.in_w;
      call.in_channels = g.in_channels;
      call.out_channels = g.out_channels;
      call.activation = activation;
      auto state = OwnState(ctx, mk, g, signature,
                            PackedPointwiseModelFilter(
                                mk, *ctx.Input<framework::Tensor>("Filter"),
                                g.in_channels, g.out_channels));
      RunAndKeepOwn(ctx, mk, std::move(state), call);
      return true;
    }
  }

  /// Runs a depthwise convolution (one filter per channel, no dilation,
  /// no residual) on channel-last input with our own loops
  /// (depthwise_conv_util.h) and keeps its state; false, with nothing
  /// done, for any other.
  static bool TryDepthwise(const framework::ExecutionContext& ctx,
                           MkldnnContext* mk,
                           const operators::Conv2DGeometry& g,
                           const operators::FusedActivation& activation,
                           const dnnl::memory::desc& src_stored,
                           InputSignature* signature) {
    if constexpr (!std::is_same<T, float>::value) {
      return false;
    } else {
      if (!OwnConvLoopsAvailable() || g.groups != g.in_channels ||
          g.out_channels != g.in_channels || g.dilation_h != 1 ||
          g.dilation_w != 1 || g.stride_h < 1 || g.stride_w < 1 ||
          ctx.Input<framework::Tensor>("ResidualData") != nullptr ||
          !OwnConvLoopsFuse(activation) || !IsModelWeight(ctx, "Filter")) {
        return false;
      }
      const Dims src_dims = {g.batch, g.in_channels, g.in_h, g.in_w};
      DepthwiseConv call;
      call.in_stride = PixelRowStride(src_stored, src_dims);
      if (call.in_stride == 0) return false;
      SetWindow(g, activation, &call);
      call.channels = g.in_channels;
      auto state = OwnState(
          ctx, mk, g, signature,
          PackedModelFilter(
              mk, *ctx.Input<framework::Tensor>("Filter"),
              KeyBuilder("depthwise_filter")
                  .Add(g.in_channels)
                  .Add(g.kernel_h)
                  .Add(g.kernel_w),
              PackedDepthwiseFilterSize(g.in_channels, g.kernel_h, g.kernel_w),
              [&](const float* filter, float* packed) {
                PackDepthwiseFilter(filter, g.in_channels, g.kernel_h,
                                    g.kernel_w, packed);
              }));
      RunAndKeepOwn(ctx, mk, std::move(state), call);
      return true;
    }
  }

  /// Runs a convolution of a few input channels read from channel-first
  /// planes (a network's stem; stem_conv_util.h) and keeps its state;
  /// false, with nothing done, for any other.
  static bool TryStem(const framework::ExecutionContext& ctx,
                      MkldnnContext* mk,
                      const operators::Conv2DGeometry& g,
                      const operators::FusedActivation& activation,
                      const dnnl::memory::desc& src_stored,
                      InputSignature* signature) {
    if constexpr (!std::is_same<T, float>::value) {
      return false;
    } else {
      const Dims src_dims = {g.batch, g.in_channels, g.in_h, g.in_w};
      if (!OwnConvLoopsAvailable() || g.groups != 1 ||
          g.in_channels > kStemMaxInChannels ||
          g.out_channels > kStemMaxOutChannels || g.dilation_h != 1 ||
          g.dilation_w != 1 || g.stride_h < 1 || g.stride_w < 1 ||
          src_stored != ActivationMd(src_dims, /*channel_last=*/false) ||
          ctx.Input<framework::Tensor>("ResidualData") != nullptr ||
          !OwnConvLoopsFuse(activation) || !IsModelWeight(ctx, "Filter")) {
        return false;
      }
      StemConv call;
      SetWindow(g, activation, &call);
      call.in_channels = g.in_channels;
      call.out_channels = g.out_channels;
      auto state = OwnState(
          ctx, mk, g, signature,
          PackedModelFilter(
              mk, *ctx.Input<framework::Tensor>("Filter"),
              KeyBuilder("stem_filter")
                  .Add(g.out_channels)
                  .Add(g.in_channels)
                  .Add(g.kernel_h)
                  .Add(g.kernel_w),
              PackedStemFilterSize(g.in_channels, g.kernel_h, g.kernel_w),
              [&](const float* filter, float* packed) {
                PackStemFilter(filter, g.out_channels, g.in_channels,
                               g.kernel_h, g.kernel_w, packed);
              }));
      RunAndKeepOwn(ctx, mk, std::move(state), call);
      return true;
    }
  }

  /// Runs a 3x3 convolution (UseWinograd's) on channel-last input as our
  /// own Winograd (winograd_conv_util.h) where that is preferred, and keeps
  /// its state; false, with nothing done, for any other.
  static bool TryWinograd(const framework::ExecutionContext& ctx,
                          MkldnnContext* mk,
                          const operators::Conv2DGeometry& g,
                          const operators::FusedActivation& activation,
                          const dnnl::memory::desc& src_stored,
                          InputSignature* signature) {
    if constexpr (!std::is_same<T, float>::value) {
      return false;
    } else {
      const Dims src_dims = {g.batch, g.in_channels, g.in_h, g.in_w};
      if (!OwnWinogradPreferred() || !UseWinograd(g) ||
          src_stored != ActivationMd(src_dims, /*channel_last=*/true) ||
          ctx.Input<framework::Tensor>("ResidualData") != nullptr ||
          !OwnConvLoopsFuse(activation) || !IsModelWeight(ctx, "Filter")) {
        return false;
      }
      WinogradConv call;
      SetImages(g, activation, &call);
      call.in_stride = g.in_channels;
      call.in_channels = g.in_channels;
      call.out_channels = g.out_channels;
      auto state =
          OwnState(ctx, mk, g, signature,
                   PackedModelFilter(
                       mk, *ctx.Input<framework::Tensor>("Filter"),
                       KeyBuilder("winograd_filter")
                           .Add(g.in_channels)
                           .Add(g.out_channels),
                       PackedWinogradFilterSize(g.in_channels, g.out_channels),
                       [&](const float* filter, float* packed) {
                         PackWinogradFilter(filter, g.in_channels,
                                            g.out_channels, packed);
                       }));
      RunAndKeepOwn(ctx, mk, std::move(state), call);
      return true;
    }
  }

  /// The image sizes, top-left paddings and activation of a call of our
  /// loops that walk images (DepthwiseConv, StemConv, WinogradConv).
  template <typename Call>
  static void SetImages(const operators::Conv2DGeometry& g,
                        const operators::FusedActivation& activation,
                        Call* call) {
    call->batch = g.batch;
    call->in_h = g.in_h;
    call->in_w = g.in_w;
    call->out_h = g.out_h;
    call->out_w = g.out_w;
    call->pad_top = g.pad.top;
    call->pad_left = g.pad.left;
    call->activation = activation;
  }

  /// SetImages, and the window and strides of a call of our window loops
  /// (DepthwiseConv, StemConv).
  template <typename Call>
  static void SetWindow(const operators::Conv2DGeometry& g,
                        const operators::FusedActivation& activation,
                        Call* call) {
    SetImages(g, activation, call);
    call->kernel_h = g.kernel_h;
    call->kernel_w = g.kernel_w;
    call->stride_h = g.stride_h;
    call->stride_w = g.stride_w;
  }

  /// The state of a convolution run by our own loops, its output
  /// channel-last, with its filter packed for them (`weights`).
  static std::shared_ptr<ConvState> OwnState(
      const framework::ExecutionContext& ctx,
      MkldnnContext* mk,
      const operators::Conv2DGeometry& g,
      InputSignature* signature,
      std::shared_ptr<dnnl::memory> weights) {
    auto state = std::make_shared<ConvState>();
    state->weights = std::move(weights);
    state->signature = std::move(*signature);
    state->filter = ctx.Input<framework::Tensor>("Filter")->raw_data();
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    state->bias = bias != nullptr ? bias->raw_data() : nullptr;
    const Dims dst_dims = {g.batch, g.out_channels, g.out_h, g.out_w};
    if (!g.channel_last) state->own_layout = mk->ChannelLastLayout(dst_dims);
    return state;
  }

  /// Keeps `call` in `state`, runs it and keeps the state in the op.
  template <typename Call>
  static void RunAndKeepOwn(const framework::ExecutionContext& ctx,
                            MkldnnContext* mk,
                            std::shared_ptr<ConvState> state,
                            const Call& call) {
    state->own = call;
    RunKeptOwn(ctx, mk, state.get());
    KeepState(ctx, std::move(state));
  }

  /// Fills the kept call's buffers in place (a copy of it per run would
  /// copy its activation's name) and runs it.
  static void RunKeptOwn(const framework::ExecutionContext& ctx,
                         MkldnnContext* mk,
                         ConvState* state) {
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    auto* output = ctx.Output<framework::Tensor>("Output");
    output->set_opaque_layout(state->own_layout);
    float* out = output->mutable_data<float>(ctx.GetPlace());
    if (framework::MakingOnly()) return;
    const auto* in = static_cast<const float*>(
        ctx.Input<framework::Tensor>("Input")->raw_data());
    const auto* filter =
        static_cast<const float*>(state->weights->get_data_handle());
    const auto* bias_data =
        bias != nullptr ? static_cast<const float*>(bias->raw_data()) : nullptr;
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    if (auto* stem = std::get_if<StemConv>(&state->own)) {
      StemConv& call = *stem;
      call.in = in;
      call.packed_filter = filter;
      call.bias = bias_data;
      call.out = out;
      RunStemConv(dev, call);
      return;
    }
    if (auto* winograd = std::get_if<WinogradConv>(&state->own)) {
      WinogradConv& call = *winograd;
      call.in = in;
      call.packed_filter = filter;
      call.bias = bias_data;
      call.out = out;
      RunWinogradConv(
          dev, call,
          mk->ScratchBuffer(MkldnnContext::kOwnLoopSlot,
                            WinogradScratchBytes(call, dev.num_threads())));
      return;
    }
    if (auto* depthwise = std::get_if<DepthwiseConv>(&state->own)) {
      DepthwiseConv& call = *depthwise;
      call.in = in;
      call.packed_filter = filter;
      call.bias = bias_data;
      call.out = out;
      RunDepthwiseConv(dev, call);
      return;
    }
    const auto* residual = ctx.Input<framework::Tensor>("ResidualData");
    PointwiseConv& call = std::get<PointwiseConv>(state->own);
    call.in = in;
    call.packed_filter = filter;
    call.bias = bias_data;
    call.residual = residual != nullptr
                        ? static_cast<const float*>(residual->raw_data())
                        : nullptr;
    call.out = out;
    RunPointwiseConv(dev, call);
  }

  /// Floats from one pixel's channels to the next's in an activation of
  /// `dims` stored as `md`, when its channels come first in them:
  /// channel-last, or up to 16 channels blocked by 16 (what oneDNN writes
  /// for a network's stem). 0 for any other layout.
  static int64_t PixelRowStride(const dnnl::memory::desc& md,
                                const Dims& dims) {
    if (md == ActivationMd(dims, /*channel_last=*/true)) return dims[1];
    if (dims[1] <= 16 &&
        md == dnnl::memory::desc(dims, dnnl::memory::data_type::f32,
                                 dnnl::memory::format_tag::aBcd16b)) {
      return 16;
    }
    return 0;
  }

  /// Runs the convolution; returns the call to keep when it read its
  /// inputs without a reorder (else an empty one). The caller keeps it
  /// only if no input was converted either (its signature still holds).
  static KeptCall Execute(const framework::ExecutionContext& ctx,
                          MkldnnContext* mk,
                          const ConvPrimitive& conv,
                          const dnnl::memory& weights,
                          const dnnl::memory::desc& src_stored,
                          const dnnl::memory::desc& dst_plain) {
    const auto* input = ctx.Input<framework::Tensor>("Input");
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    const auto* residual = ctx.Input<framework::Tensor>("ResidualData");
    auto* output = ctx.Output<framework::Tensor>("Output");
    const dnnl::memory src =
        InputMemory(mk, 0, *input, src_stored, conv.pd.src_desc());
    bool as_they_came = src_stored == conv.pd.src_desc();
    const dnnl::memory::desc& dst_md = conv.pd.dst_desc();
    if (!conv.output_md.is_zero()) {  // Winograd (no residual)
      const dnnl::memory dst = mk->Scratch(1, dst_md);
      std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, src},
                                                    {DNNL_ARG_WEIGHTS, weights},
                                                    {DNNL_ARG_DST, dst}};
      if (bias != nullptr) {
        args[DNNL_ARG_BIAS] =
            UserMemory(conv.pd.bias_desc(), mk->engine(), bias->data<T>());
      }
      ExecuteWithScratchpad(mk, conv.pd, conv.prim, &args);
      dnnl::memory out =
          OutputMemory<T>(ctx, mk, output, conv.dst_layout, conv.output_md);
      dnnl::memory from = dst;
      RunReorder(conv.to_output, mk->stream(), from, out);
      mk->stream().wait();
      return KeptCall();
    }
    const dnnl::memory dst =
        OutputMemory<T>(ctx, mk, output, conv.dst_layout, dst_md);
    if (residual != nullptr) {
      const dnnl::memory::desc stored =
          StoredMd(ctx, "ResidualData", dst_plain);
      as_they_came = as_they_came && stored == dst_md;
      if (stored == dst_md) {
        if (!framework::MakingOnly()) {
          std::memcpy(dst.get_data_handle(), residual->raw_data(),
                      dst_md.get_size());
        }
      } else {
        dnnl::memory from =
            UserMemory(stored, mk->engine(), residual->raw_data());
        dnnl::memory to = dst;
        RunReorder(mk->Reorder(stored, dst_md), mk->stream(), from, to);
      }
    }
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
    if (bias != nullptr) {
      args[DNNL_ARG_BIAS] =
          UserMemory(conv.pd.bias_desc(), mk->engine(), bias->data<T>());
    }
    ExecuteWithScratchpad(mk, conv.pd, conv.prim, &args);
    if (!as_they_came) return KeptCall();
    return KeptCall(conv.pd, conv.prim, std::move(args));
  }
};

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
