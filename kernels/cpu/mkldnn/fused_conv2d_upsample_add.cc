// fused_conv2d_upsample_add for a 1x1 convolution (stride 1, no padding,
// one group) of a channel-last input with a channel-last ResidualData, on
// our own 1x1 loops (pointwise_conv_util.h): each output row's residual
// row is gathered through the nearest index into a row of scratch, which
// the loops add as they store (the row is gathered once for the output
// rows that share a source row). The upsampled map, as large as the
// output, is never written, and the residual read stays in the cache.
// The output is channel-last, as the conv kernel's own loops write it.
// Anything else (another window, other layouts, no AVX2) goes to the
// PLAIN kernel. Nothing is made per size.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "framework/kernel_registry.h"
#include "kernels/cpu/mkldnn/mkldnn_helper.h"
#include "kernels/cpu/mkldnn/own_conv_util.h"
#include "kernels/cpu/mkldnn/pointwise_conv_util.h"
#include "operators/conv_pool_shape.h"
#include "operators/interp_op.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

/// What the op keeps between runs, for the inputs it last saw (their
/// dims and layouts and the thread count: `signature`): whether our loops
/// run them, and then the geometry, the nearest index and the packed
/// filter.
struct ConvUpsampleAddState {
  InputSignature signature;
  const void* filter = nullptr;
  bool own = false;
  operators::Conv2DGeometry geometry;
  std::vector<int64_t> rows;
  std::vector<int64_t> columns;
  std::shared_ptr<dnnl::memory> weights;
  std::shared_ptr<const MkldnnLayout> out_layout;
};

template <typename T>
class MkldnnConvUpsampleAddKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* input = ctx.Input<framework::Tensor>("Input");
    const auto* residual = ctx.Input<framework::Tensor>("ResidualData");
    MkldnnContext& mk = PrepareMkldnn(ctx);
    ConvUpsampleAddState own;
    const ConvUpsampleAddState* state = StateFor(ctx, &mk, &own);
    if (!state->own) {
      RunPlainKernel<T>(ctx);
      return;
    }
    const operators::Conv2DGeometry& g = state->geometry;
    MakeInputPlain(ctx, "Bias");
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    auto* output = ctx.Output<framework::Tensor>("Output");
    output->set_opaque_layout(state->out_layout);
    float* out = output->mutable_data<float>(ctx.GetPlace());
    if (framework::MakingOnly()) return;

    PointwiseConv base;
    base.in_stride = g.in_channels;
    base.packed_filter =
        static_cast<const float*>(state->weights->get_data_handle());
    base.bias = bias != nullptr ? bias->data<float>() : nullptr;
    base.residual_stride = g.out_channels;
    base.pixels = g.out_w;
    base.in_channels = g.in_channels;
    base.out_channels = g.out_channels;
    base.activation = operators::ConvAttrsOf(ctx.op()).activation;
    const PointwiseRowsFn run_rows = PointwiseRowsFor(base.activation);
    const float* in = input->data<float>();
    const float* source = residual->data<float>();
    const int64_t residual_h = residual->dims()[2];
    const int64_t residual_w = residual->dims()[3];
    const int64_t row_floats = g.out_w * g.out_channels;
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    // One part of the output rows per thread, each with its row of scratch.
    const int64_t rows = g.batch * g.out_h;
    const int64_t parts =
        std::max<int64_t>(1, std::min<int64_t>(dev.num_threads(), rows));
    float* scratch = static_cast<float*>(mk.ScratchBuffer(
        MkldnnContext::kOwnLoopSlot, sizeof(float) * row_floats * parts));
    const double cost = static_cast<double>(rows / parts + 1) *
                        static_cast<double>(g.out_w) *
                        static_cast<double>(g.in_channels + 4) *
                        static_cast<double>(g.out_channels) / 32.0;
    const std::vector<int64_t>& at_rows = state->rows;
    const std::vector<int64_t>& at_columns = state->columns;
    dev.ParallelFor(parts, cost, [&](int64_t begin, int64_t end) {
      for (int64_t part = begin; part < end; ++part) {
        float* gathered = scratch + part * row_floats;
        int64_t gathered_from = -1;  // source row (of all images) held
        for (int64_t row = rows * part / parts; row < rows * (part + 1) / parts;
             ++row) {
          const int64_t image = row / g.out_h;
          const int64_t from = image * residual_h + at_rows[row % g.out_h];
          if (from != gathered_from) {
            const float* src = source + from * residual_w * g.out_channels;
            for (int64_t x = 0; x < g.out_w; ++x) {
              std::memcpy(gathered + x * g.out_channels,
                          src + at_columns[x] * g.out_channels,
                          sizeof(float) * g.out_channels);
            }
            gathered_from = from;
          }
          PointwiseConv call = base;
          call.in = in + row * g.in_w * g.in_channels;
          call.residual = gathered;
          call.out = out + row * row_floats;
          run_rows(call, 0, g.out_w);
        }
      }
    });
  }

 private:
  /// The op's state for its inputs, worked out again when their dims or
  /// layouts (or the filter) changed; `own` filled in where the op keeps
  /// none.
  static const ConvUpsampleAddState* StateFor(
      const framework::ExecutionContext& ctx,
      MkldnnContext* mk,
      ConvUpsampleAddState* own) {
    const auto* input = ctx.Input<framework::Tensor>("Input");
    const auto* filter = ctx.Input<framework::Tensor>("Filter");
    const auto* residual = ctx.Input<framework::Tensor>("ResidualData");
    auto* state = KeptState<ConvUpsampleAddState>(ctx);
    if (state != nullptr && state->filter == filter->raw_data() &&
        state->signature.Matches(ctx, {input, residual})) {
      return state;
    }
    std::shared_ptr<ConvUpsampleAddState> kept;
    ConvUpsampleAddState* made = own;
    if (ctx.kernel_state() != nullptr) {
      kept = std::make_shared<ConvUpsampleAddState>();
      made = kept.get();
    }
    made->signature = InputSignature(ctx, {input, residual});
    made->filter = filter->raw_data();
    if (residual != nullptr && input->numel() != 0 && residual->numel() != 0 &&
        OwnConvLoopsAvailable() &&
        OwnConvLoopsFuse(operators::ConvAttrsOf(ctx.op()).activation) &&
        IsModelWeight(ctx, "Filter") && StoredChannelLast(*input) &&
        StoredChannelLast(*residual)) {
      const operators::Conv2DGeometry g =
          operators::ResolveConv2D(ctx.op(), input->dims(), filter->dims());
      made->own = !g.channel_last && PointwiseGeometry(g);
      made->geometry = g;
    }
    if (made->own) {
      const operators::Conv2DGeometry& g = made->geometry;
      made->rows = operators::NearestSourceIndex(
          residual->dims()[2], g.out_h, ctx.Attr<float>("scale_h"), false);
      made->columns = operators::NearestSourceIndex(
          residual->dims()[3], g.out_w, ctx.Attr<float>("scale_w"), false);
      made->weights = PackedPointwiseModelFilter(mk, *filter, g.in_channels,
                                                 g.out_channels);
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
    fused_conv2d_upsample_add,
    MKLDNN,
    CPUPlace,
    paddle_lite::kernels::mkldnn::MkldnnConvUpsampleAddKernel<float>);
