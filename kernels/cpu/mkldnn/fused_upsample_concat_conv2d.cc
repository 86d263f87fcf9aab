// fused_upsample_concat_conv2d for channel-last maps, on our own Winograd
// loops (winograd_conv_util.h): each tile's pixels are gathered from the
// parts through their nearest index into the tile's patch, so the join is
// never stored. In DBNet's head at 640x640 that join is 160x160x96 (9.8 MB,
// more than this CPU's cache holds) written by one op and read by the
// next; gathered per tile, only the finest level (a quarter of it) comes
// from memory. Our Winograd runs here on AVX-512 too (the conv kernels
// leave 3x3 convolutions to oneDNN's there), since the alternative is the
// stored join. The output is channel-last. Anything else (another window,
// other layouts, no AVX2) goes to the PLAIN kernel. Nothing is made per
// size.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "framework/kernel_registry.h"
#include "kernels/cpu/mkldnn/conv_kernel.h"
#include "kernels/cpu/mkldnn/mkldnn_helper.h"
#include "kernels/cpu/mkldnn/own_conv_util.h"
#include "kernels/cpu/mkldnn/winograd_conv_util.h"
#include "operators/conv_pool_shape.h"
#include "operators/upsample_shape.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

/// What the op keeps between runs, for the inputs it last saw (their dims
/// and layouts, the filter and the thread count): whether our loops run
/// them, and then the call with its parts (their buffers filled in per
/// run), the nearest indexes they point to and the packed filter.
struct UpsampleConcatConvState {
  int threads = 0;
  const void* filter = nullptr;
  std::vector<framework::DDim> dims;
  std::vector<std::shared_ptr<const framework::OpaqueLayout>> layouts;
  bool own = false;
  std::vector<operators::NearestIndex> index;  // per part
  std::vector<size_t> inputs;                  // X of each part
  std::vector<WinogradInputPart> parts;
  WinogradConv call;
  std::shared_ptr<dnnl::memory> weights;
  std::shared_ptr<const MkldnnLayout> out_layout;

  bool Matches(const framework::ExecutionContext& ctx,
               const std::vector<const framework::Tensor*>& xs) const {
    if (threads != ThreadsOf(ctx) ||
        filter != ctx.Input<framework::Tensor>("Filter")->raw_data() ||
        xs.size() != dims.size()) {
      return false;
    }
    for (size_t i = 0; i < xs.size(); ++i) {
      if (xs[i]->dims() != dims[i] ||
          xs[i]->opaque_layout() != layouts[i].get()) {
        return false;
      }
    }
    return true;
  }

  static int ThreadsOf(const framework::ExecutionContext& ctx) {
    return ctx.device_context<platform::CPUDeviceContext>().num_threads();
  }
};

template <typename T>
class MkldnnUpsampleConcatConvKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto xs = ctx.MultiInput<framework::Tensor>("X");
    MkldnnContext& mk = PrepareMkldnn(ctx);
    UpsampleConcatConvState own;
    UpsampleConcatConvState* state = StateFor(ctx, &mk, xs, &own);
    if (!state->own) {
      RunPlainKernel<T>(ctx);
      return;
    }
    MakeInputPlain(ctx, "Bias");
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    auto* output = ctx.Output<framework::Tensor>("Output");
    output->set_opaque_layout(state->out_layout);
    float* out = output->mutable_data<float>(ctx.GetPlace());
    if (framework::MakingOnly()) return;
    for (size_t k = 0; k < state->parts.size(); ++k) {
      state->parts[k].in = xs[state->inputs[k]]->data<float>();
    }
    WinogradConv& call = state->call;
    call.parts = state->parts.data();
    call.packed_filter =
        static_cast<const float*>(state->weights->get_data_handle());
    call.bias = bias != nullptr ? bias->data<float>() : nullptr;
    call.out = out;
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    RunWinogradConv(
        dev, call,
        mk.ScratchBuffer(MkldnnContext::kOwnLoopSlot,
                         WinogradScratchBytes(call, dev.num_threads())));
  }

 private:
  /// The op's state for its inputs, worked out again when they changed;
  /// `own` filled in where the op keeps none.
  static UpsampleConcatConvState* StateFor(
      const framework::ExecutionContext& ctx,
      MkldnnContext* mk,
      const std::vector<const framework::Tensor*>& xs,
      UpsampleConcatConvState* own) {
    auto* state = KeptState<UpsampleConcatConvState>(ctx);
    if (state != nullptr && state->Matches(ctx, xs)) return state;
    std::shared_ptr<UpsampleConcatConvState> kept;
    UpsampleConcatConvState* made = own;
    if (ctx.kernel_state() != nullptr) {
      kept = std::make_shared<UpsampleConcatConvState>();
      made = kept.get();
    }
    const auto* filter = ctx.Input<framework::Tensor>("Filter");
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    made->threads = UpsampleConcatConvState::ThreadsOf(ctx);
    made->filter = filter->raw_data();
    for (const framework::Tensor* x : xs) {
      made->dims.push_back(x->dims());
      made->layouts.push_back(x->shared_opaque_layout());
    }
    const operators::UpsampleConcatGeometry join =
        operators::ResolveUpsampleConcat(
            ctx.op().Type(), made->dims,
            ctx.Attr<std::vector<float>>("scale_h"),
            ctx.Attr<std::vector<float>>("scale_w"));
    const operators::Conv2DGeometry g =
        operators::ResolveConv2D(ctx.op(), join.OutputDims(), filter->dims());
    const operators::FusedActivation& activation =
        operators::ConvAttrsOf(ctx.op()).activation;
    bool own_loops = std::is_same<T, float>::value && join.batch > 0 &&
                     join.out_h > 0 && join.out_w > 0 && g.out_h > 0 &&
                     g.out_w > 0 && !g.channel_last && UseWinograd(g) &&
                     g.pad.top >= 0 && g.pad.left >= 0 &&
                     OwnConvLoopsAvailable() && OwnConvLoopsFuse(activation) &&
                     IsModelWeight(ctx, "Filter") &&
                     (bias == nullptr || bias->numel() == g.out_channels);
    for (const operators::UpsampledPart& p : join.parts) {
      own_loops = own_loops && StoredChannelLast(*xs[p.input]);
    }
    made->own = own_loops;
    if (own_loops) {
      for (const operators::UpsampledPart& p : join.parts) {
        made->index.push_back(operators::NearestIndexOf(p, join));
        made->inputs.push_back(p.input);
      }
      for (size_t k = 0; k < join.parts.size(); ++k) {
        const operators::UpsampledPart& p = join.parts[k];
        WinogradInputPart part;
        part.in_h = p.in_h;
        part.in_w = p.in_w;
        part.channels = p.channels;
        part.channel_offset = p.channel_offset;
        part.rows = made->index[k].rows.data();
        part.columns = made->index[k].columns.data();
        made->parts.push_back(part);
      }
      WinogradConv& call = made->call;
      call.part_count = static_cast<int64_t>(made->parts.size());
      call.batch = g.batch;
      call.in_h = g.in_h;
      call.in_w = g.in_w;
      call.out_h = g.out_h;
      call.out_w = g.out_w;
      call.pad_top = g.pad.top;
      call.pad_left = g.pad.left;
      call.in_channels = g.in_channels;
      call.out_channels = g.out_channels;
      call.activation = activation;
      // Under conv2d's key for the same packing: one copy for both.
      made->weights = PackedModelFilter(
          mk, *filter,
          KeyBuilder("winograd_filter").Add(g.in_channels).Add(g.out_channels),
          PackedWinogradFilterSize(g.in_channels, g.out_channels),
          [&g](const float* weights, float* packed) {
            PackWinogradFilter(weights, g.in_channels, g.out_channels, packed);
          });
      made->out_layout =
          mk->ChannelLastLayout({g.batch, g.out_channels, g.out_h, g.out_w});
    }
    if (kept != nullptr) KeepState(ctx, std::move(kept));
    return made;
  }
};

}  // namespace
}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    fused_upsample_concat_conv2d,
    MKLDNN,
    CPUPlace,
    paddle_lite::kernels::mkldnn::MkldnnUpsampleConcatConvKernel<float>);
