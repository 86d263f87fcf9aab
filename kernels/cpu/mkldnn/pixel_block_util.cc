#include "kernels/cpu/mkldnn/pixel_block_util.h"

#include <vector>

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

bool IsPixelBlock(const operators::Conv2DGeometry& g) {
  return g.groups == 1 && g.dilation_h == 1 && g.dilation_w == 1 &&
         g.kernel_h == g.stride_h && g.kernel_w == g.stride_w &&
         g.pad.top == 0 && g.pad.bottom == 0 && g.pad.left == 0 &&
         g.pad.right == 0 && g.out_h == g.in_h * g.stride_h &&
         g.out_w == g.in_w * g.stride_w;
}

bool OwnPixelBlockIsNarrow(const operators::Conv2DGeometry& g) {
  return g.kernel_w * g.out_channels < 8;
}

int64_t OwnPixelBlockColumns(const operators::Conv2DGeometry& g) {
  const int64_t row = g.kernel_w * g.out_channels;
  return OwnPixelBlockIsNarrow(g) ? g.kernel_h * row : row;
}

std::shared_ptr<dnnl::memory> OwnPixelBlockWeights(
    MkldnnContext* mk,
    const framework::Tensor& filter,
    const operators::Conv2DGeometry& g) {
  const int64_t c = g.in_channels, m = g.out_channels;
  const int64_t kh = g.kernel_h, kw = g.kernel_w;
  // A matrix per kernel row, or one for the whole block.
  const int64_t columns = OwnPixelBlockColumns(g);
  const int64_t matrices = kh * kw * m / columns;
  const int64_t matrix = PackedPointwiseFilterSize(c, columns);
  // [KH][KW][M][Cin]: row (y, x, oc) of the block's filter, each
  // matrix's rows packed as a 1x1 filter's.
  return PackedModelFilter(
      mk, filter, KeyBuilder("own_pixel_block_weights").Add(filter.dims()),
      matrices * matrix, [&](const float* f, float* to) {
        std::vector<float> block_filter(kh * kw * m * c);
        for (int64_t y = 0; y < kh; ++y) {
          for (int64_t x = 0; x < kw; ++x) {
            for (int64_t oc = 0; oc < m; ++oc) {
              for (int64_t ic = 0; ic < c; ++ic) {
                block_filter[((y * kw + x) * m + oc) * c + ic] =
                    f[((ic * m + oc) * kh + y) * kw + x];
              }
            }
          }
        }
        for (int64_t i = 0; i < matrices; ++i) {
          PackPointwiseFilter(block_filter.data() + i * columns * c, c, columns,
                              to + i * matrix);
        }
      });
}

std::shared_ptr<dnnl::memory> OwnPixelBlockBias(MkldnnContext* mk,
                                                const framework::Tensor& bias,
                                                int64_t columns) {
  const int64_t m = bias.numel();
  KeyBuilder key("own_pixel_block_bias");
  key.Add(static_cast<int64_t>(reinterpret_cast<uintptr_t>(bias.raw_data())))
      .Add(columns);
  return mk->Weights(key.str(), [&] {
    auto made =
        std::make_shared<dnnl::memory>(PlainMd({columns}), mk->engine());
    const float* b = bias.data<float>();
    float* to = static_cast<float*>(made->get_data_handle());
    for (int64_t i = 0; i < columns; ++i) to[i] = b[i % m];
    return made;
  });
}

int64_t OwnPixelBlockRowScratch(const operators::Conv2DGeometry& g) {
  return OwnPixelBlockIsNarrow(g)
             ? g.in_w * g.kernel_h * g.kernel_w * g.out_channels
             : 0;
}

void RunOwnPixelBlockRow(const OwnPixelBlock& block,
                         const float* in_row,
                         float* out_rows,
                         float* scratch) {
  const operators::Conv2DGeometry& g = block.geometry;
  const int64_t c = g.in_channels, m = g.out_channels;
  const int64_t kh = g.kernel_h, kw = g.kernel_w;
  const int64_t columns = OwnPixelBlockColumns(g);
  // A kernel row's floats per input pixel, and an output row's floats.
  const int64_t row_floats = kw * m;
  const int64_t out_row = g.in_w * row_floats;
  PointwiseConv call;
  call.in = in_row;
  call.in_stride = c;
  call.bias = block.bias;
  call.pixels = g.in_w;
  call.in_channels = c;
  call.out_channels = columns;
  call.activation = block.activation;
  if (OwnPixelBlockIsNarrow(g)) {
    call.packed_filter = block.packed_filter;
    call.out = scratch;
    block.multiply(call, 0, g.in_w);
    const int64_t pixel_block = kh * row_floats;
    for (int64_t a = 0; a < kh; ++a) {
      float* to = out_rows + a * out_row;
      const float* from = scratch + a * row_floats;
      // A few floats a pixel: a loop, not a memcpy call each.
      for (int64_t x = 0; x < g.in_w; ++x) {
        for (int64_t i = 0; i < row_floats; ++i) {
          to[x * row_floats + i] = from[x * pixel_block + i];
        }
      }
    }
    return;
  }
  const int64_t matrix = PackedPointwiseFilterSize(c, columns);
  for (int64_t a = 0; a < kh; ++a) {
    call.packed_filter = block.packed_filter + a * matrix;
    call.out = out_rows + a * out_row;
    block.multiply(call, 0, g.in_w);
  }
}

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
