// fused_inverted_residual on our 1x1 and depthwise loops
// (pointwise_conv_util.h, depthwise_conv_util.h), for a channel-last input
// and model weights. When the expanded map is larger than the caches hold,
// each thread takes a band of output rows and walks it a few rows at a
// time: the expanded rows those need go to the thread's scratch (rows two
// steps share are kept, not computed again), the depthwise rows to the
// scratch after them, and the projection straight into the output. At a
// detector's 896x896 the expanded map of MobileNetV3's second block is
// 448x448x32 (25.7 MB, past a 32 MB L3 with its neighbours); a step's rows
// of it are about 128 KB, and the block took 4 ms rather than 6.7. Smaller
// maps go whole through the three loops, in scratch rather than the arena.
// The output is channel-last. Anything else, and CPUs without our loops,
// go to the PLAIN kernel.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

#include "framework/kernel_registry.h"
#include "kernels/cpu/mkldnn/depthwise_conv_util.h"
#include "kernels/cpu/mkldnn/mkldnn_helper.h"
#include "kernels/cpu/mkldnn/own_conv_util.h"
#include "kernels/cpu/mkldnn/pointwise_conv_util.h"
#include "operators/inverted_residual_shape.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

// Floats of expanded rows a band aims at: with the depthwise rows after
// them and the filters, within a second-level cache.
constexpr int64_t kBandFloats = int64_t{32} << 10;
// Expanded maps up to this many floats (2 MB, all images) go whole.
constexpr int64_t kWholeMapFloats = int64_t{512} << 10;

// What every band of a call shares.
struct ResidualBlockCall {
  PointwiseConv expand;  // in, out and pixels set per band
  DepthwiseConv depthwise;
  PointwiseConv project;
  PointwiseRowsFn expand_rows = nullptr;
  DepthwiseRowsFn depthwise_rows = nullptr;
  PointwiseRowsFn project_rows = nullptr;
  const float* in = nullptr;        // Input, channel-last
  const float* residual = nullptr;  // channel-last; null: none
  float* out = nullptr;             // channel-last
  operators::InvertedResidualGeometry g;
  int64_t band = 1;       // output rows a step
  int64_t held_rows = 1;  // expanded rows the scratch holds
};

// Output rows [y_begin, y_end) of image n, on the calling thread, with
// `scratch` holding `b.held_rows` expanded rows and then a band's
// depthwise rows. The expanded rows a band needs lie one after another
// from some row of the scratch: the next band's follow on after them, and
// only when the scratch is full do the rows two bands share move to its
// start (so at 5 taps and stride 1, 4 rows move once every few bands,
// not at each).
void RunRows(const ResidualBlockCall& b,
             int64_t n,
             int64_t y_begin,
             int64_t y_end,
             float* scratch) {
  const operators::Conv2DGeometry& e = b.g.expand;
  const operators::Conv2DGeometry& d = b.g.depthwise;
  const int64_t expanded_row = e.in_w * e.out_channels;
  float* expanded = scratch;
  float* filtered = scratch + (b.held_rows * expanded_row + 15) / 16 * 16;
  // Input rows [held_begin, held_end) are in `expanded` from row `origin`.
  int64_t held_begin = 0;
  int64_t held_end = 0;
  int64_t origin = 0;
  for (int64_t yb = y_begin; yb < y_end; yb += b.band) {
    const int64_t ye = std::min(y_end, yb + b.band);
    const int64_t need_begin =
        std::clamp<int64_t>(yb * d.stride_h - d.pad.top, 0, d.in_h);
    const int64_t need_end = std::clamp<int64_t>(
        (ye - 1) * d.stride_h - d.pad.top + d.kernel_h, need_begin, d.in_h);
    int64_t first_new = need_begin;
    if (need_begin >= held_begin && need_begin < held_end) {
      // Rows the last band expanded and this one reads again.
      first_new = std::min(held_end, need_end);
      origin += need_begin - held_begin;
      if (origin + (need_end - need_begin) > b.held_rows) {
        std::memmove(expanded, expanded + origin * expanded_row,
                     sizeof(float) * (first_new - need_begin) * expanded_row);
        origin = 0;
      }
    } else {
      origin = 0;
    }
    float* window = expanded + origin * expanded_row;
    if (need_end > first_new) {
      PointwiseConv expand = b.expand;
      expand.in = b.in + ((n * e.in_h + first_new) * e.in_w) * e.in_channels;
      expand.out = window + (first_new - need_begin) * expanded_row;
      expand.pixels = (need_end - first_new) * e.in_w;
      b.expand_rows(expand, 0, expand.pixels);
    }
    held_begin = need_begin;
    held_end = need_end;
    // The band's depthwise rows read the held rows as an image of their
    // own: row yb's window starts at need_begin less its padding.
    DepthwiseConv depthwise = b.depthwise;
    depthwise.in = window;
    depthwise.out = filtered;
    depthwise.batch = 1;
    depthwise.in_h = need_end - need_begin;
    depthwise.out_h = ye - yb;
    depthwise.pad_top = d.pad.top + need_begin - yb * d.stride_h;
    b.depthwise_rows(depthwise, 0, ye - yb);
    PointwiseConv project = b.project;
    const int64_t first_pixel = (n * d.out_h + yb) * d.out_w;
    project.in = filtered;
    project.out = b.out + first_pixel * b.g.project.out_channels;
    if (b.residual != nullptr) {
      project.residual = b.residual + first_pixel * b.g.project.out_channels;
    }
    project.pixels = (ye - yb) * d.out_w;
    b.project_rows(project, 0, project.pixels);
  }
}

// What the kernel keeps between runs of one input shape and layout: the
// call of our loops with the buffers left to fill in, the packed filters
// it points to and the output's layout. Checking the op anew (weights,
// layouts, packed filters from the cache) at every run cost the
// classifier's two small blocks more than fusing them saved.
struct InvertedResidualState {
  InputSignature signature;
  const void* filters[3] = {};  // the model's filters it was made for
  std::shared_ptr<dnnl::memory> weights[3];
  std::shared_ptr<const MkldnnLayout> layout;  // Output's
  ResidualBlockCall block;
};

template <typename T>
class MkldnnInvertedResidualKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* input = ctx.Input<framework::Tensor>("Input");
    const auto* residual = ctx.Input<framework::Tensor>("ResidualData");
    if (auto* state = KeptState<InvertedResidualState>(ctx)) {
      if (state->signature.Matches(ctx, {input, residual}) &&
          state->filters[0] == FilterData(ctx, "Filter") &&
          state->filters[1] == FilterData(ctx, "DepthwiseFilter") &&
          state->filters[2] == FilterData(ctx, "ProjectFilter")) {
        Run(ctx, *state);
        return;
      }
    }
    const operators::InvertedResidualGeometry g =
        operators::ResolveInvertedResidual(ctx);
    const operators::FusedActivation act1 = operators::FusedActivationOf(ctx);
    const operators::FusedActivation act2 =
        operators::FusedActivationOf(ctx, "2");
    const operators::FusedActivation act3 =
        operators::FusedActivationOf(ctx, "3");
    // Weights are packed once, so they must be the model's; the maps go
    // row by row through our loops, which have no dilation.
    bool own = std::is_same<T, float>::value && OwnConvLoopsAvailable() &&
               OwnConvLoopsFuse(act1) && OwnConvLoopsFuse(act2) &&
               OwnConvLoopsFuse(act3) && input->numel() > 0 &&
               g.depthwise.dilation_h == 1 && g.depthwise.dilation_w == 1 &&
               g.depthwise.pad.top >= 0 && g.depthwise.pad.left >= 0;
    for (const char* slot : {"Filter", "DepthwiseFilter", "ProjectFilter"}) {
      own = own && IsModelWeight(ctx, slot);
    }
    for (const char* slot : {"Bias", "DepthwiseBias", "ProjectBias"}) {
      own = own && (!ctx.HasInput(slot) || IsModelWeight(ctx, slot));
    }
    own = own && StoredChannelLast(*input) &&
          (residual == nullptr || StoredChannelLast(*residual));
    if (!own) {
      RunPlainKernel<T>(ctx);
      return;
    }
    MkldnnContext& mk = PrepareMkldnn(ctx);
    for (const char* slot : {"Filter", "Bias", "DepthwiseFilter",
                             "DepthwiseBias", "ProjectFilter", "ProjectBias"}) {
      MakeInputPlain(ctx, slot);
    }
    auto state = std::make_shared<InvertedResidualState>();
    state->signature = InputSignature(ctx, {input, residual});
    state->filters[0] = FilterData(ctx, "Filter");
    state->filters[1] = FilterData(ctx, "DepthwiseFilter");
    state->filters[2] = FilterData(ctx, "ProjectFilter");
    const operators::Conv2DGeometry& d = g.depthwise;
    // Under conv2d's keys for the same packing: one copy for both.
    auto pointwise = [&](const char* slot, const operators::Conv2DGeometry& p) {
      return PackedPointwiseModelFilter(&mk,
                                        *ctx.Input<framework::Tensor>(slot),
                                        p.in_channels, p.out_channels);
    };
    state->weights[0] = pointwise("Filter", g.expand);
    state->weights[1] = PackedModelFilter(
        &mk, *ctx.Input<framework::Tensor>("DepthwiseFilter"),
        KeyBuilder("depthwise_filter")
            .Add(d.in_channels)
            .Add(d.kernel_h)
            .Add(d.kernel_w),
        PackedDepthwiseFilterSize(d.in_channels, d.kernel_h, d.kernel_w),
        [&d](const float* filter, float* packed) {
          PackDepthwiseFilter(filter, d.in_channels, d.kernel_h, d.kernel_w,
                              packed);
        });
    state->weights[2] = pointwise("ProjectFilter", g.project);
    const framework::DDim out_dims = g.project.OutputDims();
    state->layout =
        mk.ChannelLastLayout(Dims(out_dims.begin(), out_dims.end()));
    auto packed = [&state](int i) {
      return static_cast<const float*>(state->weights[i]->get_data_handle());
    };
    ResidualBlockCall& b = state->block;
    b.g = g;
    b.expand.in_stride = g.expand.in_channels;
    b.expand.packed_filter = packed(0);
    b.expand.bias = InputData(ctx, "Bias");
    b.expand.in_channels = g.expand.in_channels;
    b.expand.out_channels = g.expand.out_channels;
    b.expand.activation = act1;
    b.depthwise.in_stride = d.in_channels;
    b.depthwise.packed_filter = packed(1);
    b.depthwise.bias = InputData(ctx, "DepthwiseBias");
    b.depthwise.channels = d.in_channels;
    b.depthwise.in_w = d.in_w;
    b.depthwise.out_w = d.out_w;
    b.depthwise.kernel_h = d.kernel_h;
    b.depthwise.kernel_w = d.kernel_w;
    b.depthwise.stride_h = d.stride_h;
    b.depthwise.stride_w = d.stride_w;
    b.depthwise.pad_left = d.pad.left;
    b.depthwise.activation = act2;
    b.project.in_stride = g.project.in_channels;
    b.project.packed_filter = packed(2);
    b.project.bias = InputData(ctx, "ProjectBias");
    b.project.residual_stride = g.project.out_channels;
    b.project.in_channels = g.project.in_channels;
    b.project.out_channels = g.project.out_channels;
    b.project.activation = act3;
    b.expand_rows = PointwiseRowsFor(act1);
    b.depthwise_rows = DepthwiseRowsFor(act2);
    b.project_rows = PointwiseRowsFor(act3);
    // A larger map goes a band of rows at a time (see Run), in a scratch
    // of a few bands.
    const int64_t expanded_row = d.in_w * d.in_channels;
    b.band = std::clamp<int64_t>(
        (kBandFloats / expanded_row - d.kernel_h) / d.stride_h + 1, 1, d.out_h);
    const int64_t band_rows = (b.band - 1) * d.stride_h + d.kernel_h;
    b.held_rows = band_rows + std::max(band_rows, 8 * d.stride_h);
    Run(ctx, *state);
    KeepState(ctx, std::move(state));
  }

 private:
  static const void* FilterData(const framework::ExecutionContext& ctx,
                                const char* slot) {
    return ctx.Input<framework::Tensor>(slot)->raw_data();
  }

  static const float* InputData(const framework::ExecutionContext& ctx,
                                const char* slot) {
    const auto* t = ctx.Input<framework::Tensor>(slot);
    return t != nullptr ? static_cast<const float*>(t->raw_data()) : nullptr;
  }

  // Runs the kept call on this run's buffers.
  static void Run(const framework::ExecutionContext& ctx,
                  const InvertedResidualState& state) {
    MkldnnContext& mk = PrepareMkldnn(ctx);
    auto* output = ctx.Output<framework::Tensor>("Output");
    output->set_opaque_layout(state.layout);
    float* out = output->mutable_data<float>(ctx.GetPlace());
    if (framework::MakingOnly()) return;
    ResidualBlockCall b = state.block;
    b.in = InputData(ctx, "Input");
    b.residual = InputData(ctx, "ResidualData");
    b.out = out;
    const operators::InvertedResidualGeometry& g = b.g;
    const operators::Conv2DGeometry& d = g.depthwise;
    const int64_t expanded_row = d.in_w * d.in_channels;
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    // Maps that fit in the caches (all images' together) go whole, the
    // three convolutions one after the other, each split across the
    // threads: bands would cost more than they save there (their calls
    // reload the filters, and threads' bands expand the rows they share
    // twice: 4 of 30 rows at 5 taps).
    const int64_t expanded_floats = d.batch * d.in_h * expanded_row;
    const int64_t filtered_floats = d.batch * d.out_h * d.out_w * d.in_channels;
    if (expanded_floats <= kWholeMapFloats) {
      auto* expanded = static_cast<float*>(mk.ScratchBuffer(
          MkldnnContext::kOwnLoopSlot,
          sizeof(float) * static_cast<size_t>((expanded_floats + 15) / 16 * 16 +
                                              filtered_floats)));
      float* filtered = expanded + (expanded_floats + 15) / 16 * 16;
      PointwiseConv expand = b.expand;
      expand.in = b.in;
      expand.out = expanded;
      expand.pixels = d.batch * d.in_h * d.in_w;
      RunPointwiseConv(dev, expand);
      DepthwiseConv depthwise = b.depthwise;
      depthwise.in = expanded;
      depthwise.out = filtered;
      depthwise.batch = d.batch;
      depthwise.in_h = d.in_h;
      depthwise.out_h = d.out_h;
      depthwise.pad_top = d.pad.top;
      RunDepthwiseConv(dev, depthwise);
      PointwiseConv project = b.project;
      project.in = filtered;
      project.out = b.out;
      project.residual = b.residual;
      project.pixels = d.batch * d.out_h * d.out_w;
      RunPointwiseConv(dev, project);
      return;
    }
    // A larger one goes a band of rows at a time.
    const int64_t part_floats =
        (b.held_rows * expanded_row + 15) / 16 * 16 +
        (b.band * d.out_w * d.in_channels + 15) / 16 * 16;
    const int64_t rows = d.batch * d.out_h;
    const int64_t parts = std::min<int64_t>(dev.num_threads(), rows);
    auto* scratch = static_cast<float*>(mk.ScratchBuffer(
        MkldnnContext::kOwnLoopSlot,
        sizeof(float) * static_cast<size_t>(parts * part_floats)));
    // Cycles of an output row at about 16 multiply-adds a cycle.
    const double cost = (static_cast<double>(d.stride_h * d.in_w) *
                             static_cast<double>(g.expand.in_channels + 4) *
                             static_cast<double>(d.in_channels) +
                         static_cast<double>(d.out_w * d.in_channels) *
                             static_cast<double>(d.kernel_h * d.kernel_w +
                                                 g.project.out_channels + 4)) /
                        16.0;
    dev.ParallelFor(
        parts, cost * rows / parts, [&](int64_t begin, int64_t end) {
          for (int64_t part = begin; part < end; ++part) {
            const int64_t first = rows * part / parts;
            const int64_t last = rows * (part + 1) / parts;
            // A part's rows, image by image.
            for (int64_t row = first; row < last;) {
              const int64_t n = row / d.out_h;
              const int64_t y = row % d.out_h;
              const int64_t y_end = std::min(d.out_h, y + (last - row));
              RunRows(b, n, y, y_end, scratch + part * part_floats);
              row += y_end - y;
            }
          }
        });
  }
};

}  // namespace
}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    fused_inverted_residual,
    MKLDNN,
    CPUPlace,
    paddle_lite::kernels::mkldnn::MkldnnInvertedResidualKernel<float>);
