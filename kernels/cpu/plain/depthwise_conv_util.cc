#include "kernels/cpu/plain/depthwise_conv_util.h"

#include <algorithm>
#include <vector>

#include "operators/conv_pool_shape.h"
#include "platform/cpu_isa.h"

namespace paddle_lite {
namespace kernels {
namespace plain {
namespace {

// Output rows of one plane computed from one band of its input rows.
constexpr int64_t kBandRows = 16;

// dst[ow] += the taps of one filter row over one input row padded with
// zeros left and right, so the loop over columns has no borders. Filter
// widths and column strides known at compile time (3 and 5, stride 1 or
// 2, no column dilation: mobile networks') unroll the taps; others
// (kTaps == 0) add one tap per pass.
template <int kTaps, int kStride>
__attribute__((always_inline)) inline void AddFilterRow(
    const operators::Conv2DGeometry& g,
    const float* __restrict src,
    const float* __restrict w,
    float* __restrict dst) {
  if constexpr (kTaps > 0) {
    for (int64_t ow = 0; ow < g.out_w; ++ow) {
      float acc = dst[ow];
      for (int k = 0; k < kTaps; ++k) acc += w[k] * src[ow * kStride + k];
      dst[ow] = acc;
    }
  } else {
    for (int64_t k = 0; k < g.kernel_w; ++k) {
      const float wk = w[k];
      const float* s = src + k * g.dilation_w;
      for (int64_t ow = 0; ow < g.out_w; ++ow) {
        dst[ow] += wk * s[ow * g.stride_w];
      }
    }
  }
}

template <int kTaps, int kStride>
__attribute__((always_inline)) inline void BandRows(
    const operators::Conv2DGeometry& g,
    const float* band,
    int64_t band_ih,
    int64_t band_end_ih,
    int64_t padded_w,
    const float* w,
    float bias,
    int64_t oh0,
    int64_t rows,
    float* out) {
  for (int64_t i = 0; i < rows; ++i) {
    float* dst = out + i * g.out_w;
    std::fill(dst, dst + g.out_w, bias);
    const int64_t oh = oh0 + i;
    for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
      const int64_t ih = oh * g.stride_h - g.pad.top + kh * g.dilation_h;
      if (ih < band_ih || ih >= band_end_ih) continue;  // padding
      AddFilterRow<kTaps, kStride>(g, band + (ih - band_ih) * padded_w,
                                   w + kh * g.kernel_w, dst);
    }
  }
}

__attribute__((always_inline)) inline void RowsBody(
    const operators::Conv2DGeometry& g,
    const float* in,
    const float* filter,
    const float* bias,
    float* out,
    int64_t begin,
    int64_t end) {
  const int64_t multiplier = g.out_channels / g.in_channels;
  const int64_t in_plane = g.in_h * g.in_w;
  // A band row: every column a tap reads, zeros where it is padding.
  const int64_t padded_w =
      (g.out_w - 1) * g.stride_w + (g.kernel_w - 1) * g.dilation_w + 1;
  const int64_t max_band_h =
      (kBandRows - 1) * g.stride_h + (g.kernel_h - 1) * g.dilation_h + 1;
  std::vector<float> band(
      static_cast<size_t>(std::min(max_band_h, g.in_h) * padded_w));
  // Input columns that land inside a band row, and where.
  const int64_t col_lo = std::min(padded_w, g.pad.left);
  const int64_t col_hi =
      std::max(col_lo, std::min(padded_w, g.pad.left + g.in_w));
  const int64_t k =
      g.kernel_h == g.kernel_w && g.dilation_w == 1 ? g.kernel_w : 0;
  for (int64_t r = begin; r < end;) {
    const int64_t plane = r / g.out_h;  // n * M + m
    const int64_t oh0 = r % g.out_h;
    const int64_t rows = std::min({end - r, g.out_h - oh0, kBandRows});
    const int64_t m = plane % g.out_channels;
    const int64_t n = plane / g.out_channels;
    const float* src = in + (n * g.in_channels + m / multiplier) * in_plane;
    // The input rows the band's taps read, inside the image.
    const int64_t ih_lo = std::max<int64_t>(0, oh0 * g.stride_h - g.pad.top);
    const int64_t ih_hi =
        std::min(g.in_h, (oh0 + rows - 1) * g.stride_h - g.pad.top +
                             (g.kernel_h - 1) * g.dilation_h + 1);
    for (int64_t ih = ih_lo; ih < ih_hi; ++ih) {
      float* row = band.data() + (ih - ih_lo) * padded_w;
      const float* from = src + ih * g.in_w + (col_lo - g.pad.left);
      std::fill(row, row + col_lo, 0.f);
      std::copy(from, from + (col_hi - col_lo), row + col_lo);
      std::fill(row + col_hi, row + padded_w, 0.f);
    }
    const float* w = filter + m * g.kernel_h * g.kernel_w;
    const float b = bias ? bias[m] : 0.f;
    float* dst = out + r * g.out_w;
    const float* rows_in = band.data();
    if (k == 3 && g.stride_w == 1) {
      BandRows<3, 1>(g, rows_in, ih_lo, ih_hi, padded_w, w, b, oh0, rows, dst);
    } else if (k == 3 && g.stride_w == 2) {
      BandRows<3, 2>(g, rows_in, ih_lo, ih_hi, padded_w, w, b, oh0, rows, dst);
    } else if (k == 5 && g.stride_w == 1) {
      BandRows<5, 1>(g, rows_in, ih_lo, ih_hi, padded_w, w, b, oh0, rows, dst);
    } else if (k == 5 && g.stride_w == 2) {
      BandRows<5, 2>(g, rows_in, ih_lo, ih_hi, padded_w, w, b, oh0, rows, dst);
    } else {
      BandRows<0, 0>(g, rows_in, ih_lo, ih_hi, padded_w, w, b, oh0, rows, dst);
    }
    r += rows;
  }
}

using RowsFn = void (*)(const operators::Conv2DGeometry&,
                        const float*,
                        const float*,
                        const float*,
                        float*,
                        int64_t,
                        int64_t);

#define PDLITE_DEPTHWISE_ROWS(SUFFIX, TARGET)                            \
  TARGET void Rows##SUFFIX(const operators::Conv2DGeometry& g,           \
                           const float* in, const float* filter,         \
                           const float* bias, float* out, int64_t begin, \
                           int64_t end) {                                \
    RowsBody(g, in, filter, bias, out, begin, end);                      \
  }

PDLITE_DEPTHWISE_ROWS(Avx512, __attribute__((target("avx512f,fma"))))
PDLITE_DEPTHWISE_ROWS(Avx2, __attribute__((target("avx2,fma"))))
PDLITE_DEPTHWISE_ROWS(Baseline, )

#undef PDLITE_DEPTHWISE_ROWS

// The widest the CPU runs, picked once at load.
RowsFn PickRows() {
  switch (platform::WidestCpuIsa()) {
    case platform::CpuIsa::kAvx512:
      return RowsAvx512;
    case platform::CpuIsa::kAvx2:
      return RowsAvx2;
    default:
      return RowsBaseline;
  }
}

const RowsFn kRows = PickRows();

}  // namespace

void DepthwiseConvRows(const operators::Conv2DGeometry& g,
                       const float* in,
                       const float* filter,
                       const float* bias,
                       float* out,
                       int64_t begin,
                       int64_t end) {
  kRows(g, in, filter, bias, out, begin, end);
}

}  // namespace plain
}  // namespace kernels
}  // namespace paddle_lite
