// A pixel-block deconvolution (kernel = stride, no padding, dilation 1, one
// group: every input pixel writes its own KH x KW block of output pixels)
// on our 1x1 loops, an input row at a time: conv2d_transpose's MKLDNN
// kernel and fused_conv2d_transpose_pair's (a detector's two 2x upsampling
// deconvolutions, the map between them kept a few rows at a time). Private
// to kernels/cpu/mkldnn.
#pragma once

#include <cstdint>
#include <memory>

#include "kernels/cpu/mkldnn/mkldnn_helper.h"
#include "kernels/cpu/mkldnn/pointwise_conv_util.h"
#include "operators/conv_pool_shape.h"
#include "operators/fused_activation.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

/// True when every input pixel writes its own KH x KW block of output
/// pixels and nothing else reaches them.
bool IsPixelBlock(const operators::Conv2DGeometry& g);

/// True when our loops compute a pixel's whole KH x KW block at once (into
/// scratch, then moved into place): a kernel row's KW * M columns would
/// fill less than an AVX2 vector (a detector's 1-channel map).
bool OwnPixelBlockIsNarrow(const operators::Conv2DGeometry& g);

/// The output columns of each of our loops' products: a kernel row's
/// KW * M, or the whole block's KH * KW * M when narrow.
int64_t OwnPixelBlockColumns(const operators::Conv2DGeometry& g);

/// Paddle's filter [Cin, M, KH, KW] (a model weight) for our 1x1 loops: for
/// each kernel row, the 1x1 filter [KW * M, Cin] (output columns in (kw, m)
/// order) packed by PackPointwiseFilter; when narrow, the whole block's
/// filter [KH * KW * M, Cin] packed once. Cached per filter.
std::shared_ptr<dnnl::memory> OwnPixelBlockWeights(
    MkldnnContext* mk,
    const framework::Tensor& filter,
    const operators::Conv2DGeometry& g);

/// The bias [M] (a model weight) repeated across a product's `columns`
/// (OwnPixelBlockColumns). Cached per bias.
std::shared_ptr<dnnl::memory> OwnPixelBlockBias(MkldnnContext* mk,
                                                const framework::Tensor& bias,
                                                int64_t columns);

/// One pixel-block deconvolution's call of the loops.
struct OwnPixelBlock {
  operators::Conv2DGeometry geometry;
  const float* packed_filter = nullptr;  // OwnPixelBlockWeights'
  const float* bias = nullptr;           // OwnPixelBlockBias'; null: none
  operators::FusedActivation activation;
  PointwiseRowsFn multiply = nullptr;  // PointwiseRowsFor(activation)
};

/// Floats of scratch RunOwnPixelBlockRow needs (0 unless narrow).
int64_t OwnPixelBlockRowScratch(const operators::Conv2DGeometry& g);

/// One input row (in_w pixels of in_channels, channel-last) into its KH
/// output rows (`out_rows`: KH rows of out_w pixels of out_channels, one
/// after another, as a channel-last output holds them), on the calling
/// thread; `scratch` holds OwnPixelBlockRowScratch floats.
void RunOwnPixelBlockRow(const OwnPixelBlock& block,
                         const float* in_row,
                         float* out_rows,
                         float* scratch);

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
