// fused_conv2d_transpose_pair on our 1x1 loops (pixel_block_util.h), for a
// channel-last input and model weights: each thread takes a band of input
// rows; an input row's KH1 rows of the map between go to the thread's
// scratch (a DBNet head at 640x640: 2 rows of 320 pixels of 24 channels,
// 61 KB, where the whole map is 9.8 MB), and each of them straight on
// into its KH2 output rows. The output is channel-last (plain for one
// channel). Anything else, and CPUs without our loops, go to the PLAIN
// kernel.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "framework/kernel_registry.h"
#include "kernels/cpu/mkldnn/mkldnn_helper.h"
#include "kernels/cpu/mkldnn/own_conv_util.h"
#include "kernels/cpu/mkldnn/pixel_block_util.h"
#include "operators/deconv_pair_shape.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

template <typename T>
class MkldnnConv2DTransposePairKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* input = ctx.Input<framework::Tensor>("Input");
    const auto* filter = ctx.Input<framework::Tensor>("Filter");
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    const auto* filter2 = ctx.Input<framework::Tensor>("Filter2");
    const auto* bias2 = ctx.Input<framework::Tensor>("Bias2");
    const operators::DeconvPairGeometry g = operators::ResolveDeconvPair(ctx);
    const operators::FusedActivation act1 = operators::FusedActivationOf(ctx);
    const operators::FusedActivation act2 =
        operators::FusedActivationOf(ctx, "2");
    // Weights are rearranged once, so they must be the model's; the map
    // between goes row by row into our loops' products, which take it
    // only where a kernel row fills a vector.
    bool own = std::is_same<T, float>::value && OwnConvLoopsAvailable() &&
               OwnConvLoopsFuse(act1) && OwnConvLoopsFuse(act2) &&
               !OwnPixelBlockIsNarrow(g.first) && input->numel() > 0 &&
               IsModelWeight(ctx, "Filter") && IsModelWeight(ctx, "Filter2");
    for (const char* slot : {"Bias", "Bias2"}) {
      own = own && (!ctx.HasInput(slot) || IsModelWeight(ctx, slot));
    }
    own = own && StoredChannelLast(*input);
    if (!own) {
      RunPlainKernel<T>(ctx);
      return;
    }
    MkldnnContext& mk = PrepareMkldnn(ctx);
    for (const char* slot : {"Filter", "Bias", "Filter2", "Bias2"}) {
      MakeInputPlain(ctx, slot);
    }
    const auto weights1 = OwnPixelBlockWeights(&mk, *filter, g.first);
    const auto weights2 = OwnPixelBlockWeights(&mk, *filter2, g.second);
    const auto bias1 =
        bias ? OwnPixelBlockBias(&mk, *bias, OwnPixelBlockColumns(g.first))
             : nullptr;
    const auto bias2_mem =
        bias2 ? OwnPixelBlockBias(&mk, *bias2, OwnPixelBlockColumns(g.second))
              : nullptr;
    auto* output = ctx.Output<framework::Tensor>("Output");
    const framework::DDim out_dims = g.second.OutputDims();
    output->set_opaque_layout(
        mk.ChannelLastLayout(Dims(out_dims.begin(), out_dims.end())));
    float* out = output->mutable_data<float>(ctx.GetPlace());
    if (framework::MakingOnly()) return;

    auto block_of = [](const operators::Conv2DGeometry& geometry,
                       const std::shared_ptr<dnnl::memory>& weights,
                       const std::shared_ptr<dnnl::memory>& bias_mem,
                       const operators::FusedActivation& act) {
      OwnPixelBlock block;
      block.geometry = geometry;
      block.packed_filter =
          static_cast<const float*>(weights->get_data_handle());
      block.bias = bias_mem
                       ? static_cast<const float*>(bias_mem->get_data_handle())
                       : nullptr;
      block.activation = act;
      block.multiply = PointwiseRowsFor(act);
      return block;
    };
    const OwnPixelBlock first = block_of(g.first, weights1, bias1, act1);
    const OwnPixelBlock second = block_of(g.second, weights2, bias2_mem, act2);
    const operators::Conv2DGeometry& g1 = g.first;
    const operators::Conv2DGeometry& g2 = g.second;
    const auto* in = input->data<float>();
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    const int64_t rows = g1.batch * g1.in_h;
    const int64_t parts = std::min<int64_t>(dev.num_threads(), rows);
    // A thread's scratch: an input row's rows of the map between, then the
    // second deconvolution's blocks of one of them (when narrow).
    const int64_t between_row = g1.out_w * g1.out_channels;
    const int64_t between_floats = g1.kernel_h * between_row;
    const int64_t part_floats =
        (between_floats + OwnPixelBlockRowScratch(g2) + 15) / 16 * 16;
    auto* scratch = static_cast<float*>(mk.ScratchBuffer(
        MkldnnContext::kOwnLoopSlot,
        sizeof(float) * static_cast<size_t>(parts * part_floats)));
    const int64_t in_row = g1.in_w * g1.in_channels;
    // An output row of the second, and the second's rows per row between.
    const int64_t out_row = g2.out_w * g2.out_channels;
    const int64_t out_rows = g2.kernel_h * out_row;
    // Cycles of an input row at about 16 multiply-adds a cycle.
    const double cost =
        static_cast<double>(g1.in_w) *
        (static_cast<double>(g1.in_channels + 4) *
             static_cast<double>(g1.kernel_h * g1.kernel_w * g1.out_channels) +
         static_cast<double>(g1.kernel_h * g1.kernel_w) *
             static_cast<double>(g2.in_channels + 4) *
             static_cast<double>(g2.kernel_h * g2.kernel_w * g2.out_channels)) /
        16.0;
    dev.ParallelFor(
        parts, cost * rows / parts, [&](int64_t begin, int64_t end) {
          for (int64_t part = begin; part < end; ++part) {
            float* between = scratch + part * part_floats;
            float* blocks = between + between_floats;
            for (int64_t r = rows * part / parts; r < rows * (part + 1) / parts;
                 ++r) {
              RunOwnPixelBlockRow(first, in + r * in_row, between, nullptr);
              // Row r's rows between are rows r * KH1 + a of the map between,
              // whose output rows start at (r * KH1 + a) * KH2.
              for (int64_t a = 0; a < g1.kernel_h; ++a) {
                RunOwnPixelBlockRow(second, between + a * between_row,
                                    out + (r * g1.kernel_h + a) * out_rows,
                                    blocks);
              }
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
    fused_conv2d_transpose_pair,
    MKLDNN,
    CPUPlace,
    paddle_lite::kernels::mkldnn::MkldnnConv2DTransposePairKernel<float>);
