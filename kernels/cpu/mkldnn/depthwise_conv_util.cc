#include "kernels/cpu/mkldnn/depthwise_conv_util.h"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/mkldnn/avx512_activation.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

using avx512::Act;
using avx512::Activate;
using avx512::ActOf;

int64_t RoundUp16(int64_t n) { return (n + 15) / 16 * 16; }

// Output pixels of one tile for `vectors` vectors of 16 channels: the
// accumulators take 24 of the 32 vector registers, the filter's vectors
// most of the rest.
constexpr int TilePixels(int vectors) {
  return vectors == 4 ? 6 : vectors == 3 ? 8 : vectors == 2 ? 12 : 24;
}

// One tile: output pixels [x, x + kPixels) of output row y of image n,
// the kVectors channel vectors from channel c0, the last one partial
// (masked loads and stores) with kPartial: the others' loads fold into
// the multiply-adds. Without kCheck every tap of every pixel lies inside
// the input's width (rows outside its height are left out for all); with
// it (the pixels at the left and right edges) taps outside read zeros.
template <int kVectors, int kPixels, Act kAct, bool kPartial, bool kCheck>
PDLITE_AVX512 void Tile(
    const DepthwiseConv& p, int64_t n, int64_t y, int64_t x, int64_t c0) {
  const int64_t padded = RoundUp16(p.channels);
  const int64_t left = p.channels - c0 - 16 * (kVectors - 1);
  const __mmask16 last =
      left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
  __m512 acc[kPixels][kVectors];
#pragma GCC unroll 4
  for (int v = 0; v < kVectors; ++v) {
    const __mmask16 m = v == kVectors - 1 ? last : __mmask16(0xFFFF);
    const __m512 start = p.bias != nullptr
                             ? _mm512_maskz_loadu_ps(m, p.bias + c0 + 16 * v)
                             : _mm512_setzero_ps();
#pragma GCC unroll 24
    for (int i = 0; i < kPixels; ++i) acc[i][v] = start;
  }
  const int64_t first_x = x * p.stride_w - p.pad_left;
  // Floats from one output pixel's input to the next's.
  const int64_t step = p.stride_w * p.in_stride;
  const int64_t top = y * p.stride_h - p.pad_top;
  const int64_t row_begin = std::max<int64_t>(0, -top);
  const int64_t row_end = std::min<int64_t>(p.kernel_h, p.in_h - top);
  for (int64_t r = row_begin; r < row_end; ++r) {
    const float* in_row =
        p.in + ((n * p.in_h + top + r) * p.in_w) * p.in_stride + c0;
    const float* w_row = p.packed_filter + r * p.kernel_w * padded + c0;
    for (int64_t s = 0; s < p.kernel_w; ++s) {
      __m512 w[kVectors];
#pragma GCC unroll 4
      for (int v = 0; v < kVectors; ++v) {
        w[v] = _mm512_loadu_ps(w_row + s * padded + 16 * v);
      }
      const float* px = in_row + (first_x + s) * p.in_stride;
#pragma GCC unroll 24
      for (int i = 0; i < kPixels; ++i, px += step) {
        if (kCheck) {
          const int64_t ix = first_x + i * p.stride_w + s;
          if (ix < 0 || ix >= p.in_w) continue;
        }
#pragma GCC unroll 4
        for (int v = 0; v < kVectors; ++v) {
          const __m512 in = kPartial && v == kVectors - 1
                                ? _mm512_maskz_loadu_ps(last, px + 16 * v)
                                : _mm512_loadu_ps(px + 16 * v);
          acc[i][v] = _mm512_fmadd_ps(in, w[v], acc[i][v]);
        }
      }
    }
  }
  float* out = p.out + ((n * p.out_h + y) * p.out_w + x) * p.channels + c0;
#pragma GCC unroll 24
  for (int i = 0; i < kPixels; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) {
      const __m512 y =
          Activate<kAct>(acc[i][v], p.activation.alpha, p.activation.beta);
      if (kPartial && v == kVectors - 1) {
        _mm512_mask_storeu_ps(out + i * p.channels + 16 * v, last, y);
      } else {
        _mm512_storeu_ps(out + i * p.channels + 16 * v, y);
      }
    }
  }
}

// Output pixels [0, out_w) of one row, one channel block, kVectors wide:
// the edges a pixel at a time with checks, the middle a tile at a time,
// what is left of it a pixel at a time.
template <int kVectors, Act kAct, bool kPartial>
void Span(const DepthwiseConv& p,
          int64_t n,
          int64_t y,
          int64_t c0,
          int64_t inner_begin,
          int64_t inner_end) {
  constexpr int kPixels = TilePixels(kVectors);
  for (int64_t x = 0; x < inner_begin; ++x) {
    Tile<kVectors, 1, kAct, kPartial, true>(p, n, y, x, c0);
  }
  int64_t x = inner_begin;
  for (; x + kPixels <= inner_end; x += kPixels) {
    Tile<kVectors, kPixels, kAct, kPartial, false>(p, n, y, x, c0);
  }
  for (; x < inner_end; ++x) {
    Tile<kVectors, 1, kAct, kPartial, false>(p, n, y, x, c0);
  }
  for (x = inner_end; x < p.out_w; ++x) {
    Tile<kVectors, 1, kAct, kPartial, true>(p, n, y, x, c0);
  }
}

// Output rows [begin, end) of all images (row = n * out_h + y), every
// channel block of up to 64 channels in turn.
template <Act kAct>
void Rows(const DepthwiseConv& p, int64_t begin, int64_t end) {
  // The pixels whose every tap lies inside the input's width.
  const int64_t inner_begin =
      std::min(p.out_w, (p.pad_left + p.stride_w - 1) / p.stride_w);
  int64_t inner_end = 0;
  if (p.in_w - p.kernel_w + p.pad_left >= 0) {
    inner_end = (p.in_w - p.kernel_w + p.pad_left) / p.stride_w + 1;
  }
  inner_end = std::max(inner_begin, std::min(p.out_w, inner_end));
  const int64_t vectors = RoundUp16(p.channels) / 16;
  for (int64_t row = begin; row < end; ++row) {
    const int64_t n = row / p.out_h;
    const int64_t y = row % p.out_h;
    for (int64_t v = 0; v < vectors; v += 4) {
      const int64_t c0 = v * 16;
      const int64_t count = std::min<int64_t>(4, vectors - v);
      const bool partial = p.channels - c0 < 16 * count;
      switch (count * 2 + (partial ? 1 : 0)) {
        case 8:
          Span<4, kAct, false>(p, n, y, c0, inner_begin, inner_end);
          break;
        case 9:
          Span<4, kAct, true>(p, n, y, c0, inner_begin, inner_end);
          break;
        case 6:
          Span<3, kAct, false>(p, n, y, c0, inner_begin, inner_end);
          break;
        case 7:
          Span<3, kAct, true>(p, n, y, c0, inner_begin, inner_end);
          break;
        case 4:
          Span<2, kAct, false>(p, n, y, c0, inner_begin, inner_end);
          break;
        case 5:
          Span<2, kAct, true>(p, n, y, c0, inner_begin, inner_end);
          break;
        case 2:
          Span<1, kAct, false>(p, n, y, c0, inner_begin, inner_end);
          break;
        default:
          Span<1, kAct, true>(p, n, y, c0, inner_begin, inner_end);
          break;
      }
    }
  }
}

using RowsFn = void (*)(const DepthwiseConv&, int64_t, int64_t);

RowsFn RowsFor(Act act) {
  return avx512::WithAct(
      act, [](auto kind) -> RowsFn { return Rows<decltype(kind)::value>; });
}

}  // namespace

int64_t PackedDepthwiseFilterSize(int64_t channels,
                                  int64_t kernel_h,
                                  int64_t kernel_w) {
  return kernel_h * kernel_w * RoundUp16(channels);
}

void PackDepthwiseFilter(const float* filter,
                         int64_t channels,
                         int64_t kernel_h,
                         int64_t kernel_w,
                         float* packed) {
  const int64_t padded = RoundUp16(channels);
  const int64_t taps = kernel_h * kernel_w;
  std::memset(packed, 0, sizeof(float) * taps * padded);
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t t = 0; t < taps; ++t) {
      packed[t * padded + c] = filter[c * taps + t];
    }
  }
}

void RunDepthwiseConv(const platform::CPUDeviceContext& dev,
                      const DepthwiseConv& conv) {
  Act act = Act::kNone;
  ActOf(conv.activation, &act);
  const RowsFn rows = RowsFor(act);
  // Cycles per output row at about 2 vector multiply-adds a cycle.
  const double cost = static_cast<double>(conv.out_w) *
                      static_cast<double>(RoundUp16(conv.channels) / 16) *
                      static_cast<double>(conv.kernel_h * conv.kernel_w + 2) /
                      2.0;
  dev.ParallelFor(conv.batch * conv.out_h, cost,
                  [&](int64_t begin, int64_t end) { rows(conv, begin, end); });
}

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
