#include "kernels/cpu/mkldnn/stem_conv_util.h"

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

// Output pixels of one tile: one accumulator of output channels each;
// every tap's filter vector is loaded once per tile and each pixel's input
// value is broadcast into its multiply-add.
constexpr int kTilePixels = 12;

// The tiles' vectors: 16 lanes, or 8 for at most 8 output channels (with
// 16 lanes for 8 channels half of every multiply-add is wasted, and the
// multiply-adds are what a stem's time goes to: CPUs that run one 16-lane
// multiply-add a cycle run two 8-lane ones).
struct Lanes16 {
  using Vec = __m512;
  PDLITE_AVX512 static Vec Bias(const StemConv& p, __mmask16 outs) {
    return p.bias != nullptr ? _mm512_maskz_loadu_ps(outs, p.bias)
                             : _mm512_setzero_ps();
  }
  PDLITE_AVX512 static Vec Load(const float* p) { return _mm512_loadu_ps(p); }
  PDLITE_AVX512 static Vec MulAdd(float a, Vec w, Vec acc) {
    return _mm512_fmadd_ps(_mm512_set1_ps(a), w, acc);
  }
  PDLITE_AVX512 static __m512 Widen(Vec v) { return v; }
};

struct Lanes8 {
  using Vec = __m256;
  PDLITE_AVX512 static Vec Bias(const StemConv& p, __mmask16) {
    float bias[8] = {};
    if (p.bias != nullptr) std::copy(p.bias, p.bias + p.out_channels, bias);
    return _mm256_loadu_ps(bias);
  }
  PDLITE_AVX512 static Vec Load(const float* p) { return _mm256_loadu_ps(p); }
  PDLITE_AVX512 static Vec MulAdd(float a, Vec w, Vec acc) {
    return _mm256_fmadd_ps(_mm256_set1_ps(a), w, acc);
  }
  // Zeros above, through the zero-masking form (the plain one starts from
  // an undefined vector, and GCC 12 warns).
  PDLITE_AVX512 static __m512 Widen(Vec v) {
    return _mm512_castpd_ps(_mm512_maskz_insertf64x4(
        __mmask8(0xFF), _mm512_setzero_pd(), _mm256_castps_pd(v), 0));
  }
};

// Output pixels [x, x + kPixels) of output row y of image n. Without
// kCheck every tap of every pixel lies inside the input's width (rows
// outside its height are left out for all); with it (the pixels at the
// left and right edges) taps outside read zeros.
template <typename L, int kPixels, Act kAct, bool kCheck>
PDLITE_AVX512 void Tile(const StemConv& p, int64_t n, int64_t y, int64_t x) {
  const __mmask16 outs = __mmask16((1u << p.out_channels) - 1);
  const typename L::Vec start = L::Bias(p, outs);
  typename L::Vec acc[kPixels];
#pragma GCC unroll 12
  for (int i = 0; i < kPixels; ++i) acc[i] = start;
  const int64_t first_x = x * p.stride_w - p.pad_left;
  const int64_t top = y * p.stride_h - p.pad_top;
  const int64_t row_begin = std::max<int64_t>(0, -top);
  const int64_t row_end = std::min<int64_t>(p.kernel_h, p.in_h - top);
  for (int64_t c = 0; c < p.in_channels; ++c) {
    const float* plane = p.in + (n * p.in_channels + c) * p.in_h * p.in_w;
    for (int64_t r = row_begin; r < row_end; ++r) {
      const float* in_row = plane + (top + r) * p.in_w;
      const float* w_row =
          p.packed_filter + ((c * p.kernel_h + r) * p.kernel_w) * 16;
      for (int64_t s = 0; s < p.kernel_w; ++s) {
        const typename L::Vec w = L::Load(w_row + s * 16);
#pragma GCC unroll 12
        for (int i = 0; i < kPixels; ++i) {
          // An index, not a pointer: at the edges the tap's address may
          // lie outside the plane, which a pointer may not even point to.
          const int64_t ix = first_x + i * p.stride_w + s;
          if (kCheck && (ix < 0 || ix >= p.in_w)) continue;
          acc[i] = L::MulAdd(in_row[ix], w, acc[i]);
        }
      }
    }
  }
  float* out = p.out + ((n * p.out_h + y) * p.out_w + x) * p.out_channels;
#pragma GCC unroll 12
  for (int i = 0; i < kPixels; ++i) {
    const __m512 v =
        Activate<kAct>(L::Widen(acc[i]), p.activation.alpha, p.activation.beta);
    _mm512_mask_storeu_ps(out + i * p.out_channels, outs, v);
  }
}

// Output pixels [0, out_w) of output row y of image n: the edges a pixel
// at a time with checks, the middle a tile at a time, what is left of it
// a pixel at a time.
template <typename L, Act kAct>
void Span(const StemConv& p,
          int64_t n,
          int64_t y,
          int64_t inner_begin,
          int64_t inner_end) {
  int64_t x = 0;
  for (; x < inner_begin; ++x) Tile<L, 1, kAct, true>(p, n, y, x);
  for (; x + kTilePixels <= inner_end; x += kTilePixels) {
    Tile<L, kTilePixels, kAct, false>(p, n, y, x);
  }
  for (; x < inner_end; ++x) Tile<L, 1, kAct, false>(p, n, y, x);
  for (; x < p.out_w; ++x) Tile<L, 1, kAct, true>(p, n, y, x);
}

// Output rows [begin, end) of all images (row = n * out_h + y).
template <Act kAct>
void Rows(const StemConv& p, int64_t begin, int64_t end) {
  // The pixels whose every tap lies inside the input's width.
  const int64_t inner_begin =
      std::min(p.out_w, (p.pad_left + p.stride_w - 1) / p.stride_w);
  int64_t inner_end = 0;
  if (p.in_w - p.kernel_w + p.pad_left >= 0) {
    inner_end = (p.in_w - p.kernel_w + p.pad_left) / p.stride_w + 1;
  }
  inner_end = std::max(inner_begin, std::min(p.out_w, inner_end));
  for (int64_t row = begin; row < end; ++row) {
    const int64_t n = row / p.out_h;
    const int64_t y = row % p.out_h;
    if (p.out_channels <= 8) {
      Span<Lanes8, kAct>(p, n, y, inner_begin, inner_end);
    } else {
      Span<Lanes16, kAct>(p, n, y, inner_begin, inner_end);
    }
  }
}

using RowsFn = void (*)(const StemConv&, int64_t, int64_t);

RowsFn RowsFor(Act act) {
  return avx512::WithAct(
      act, [](auto kind) -> RowsFn { return Rows<decltype(kind)::value>; });
}

}  // namespace

int64_t PackedStemFilterSize(int64_t in_channels,
                             int64_t kernel_h,
                             int64_t kernel_w) {
  return in_channels * kernel_h * kernel_w * 16;
}

void PackStemFilter(const float* filter,
                    int64_t out_channels,
                    int64_t in_channels,
                    int64_t kernel_h,
                    int64_t kernel_w,
                    float* packed) {
  const int64_t taps = in_channels * kernel_h * kernel_w;
  std::memset(packed, 0, sizeof(float) * taps * 16);
  for (int64_t o = 0; o < out_channels; ++o) {
    for (int64_t t = 0; t < taps; ++t) {
      packed[t * 16 + o] = filter[o * taps + t];
    }
  }
}

void RunStemConv(const platform::CPUDeviceContext& dev, const StemConv& conv) {
  Act act = Act::kNone;
  ActOf(conv.activation, &act);
  const RowsFn rows = RowsFor(act);
  // Cycles per output row at about 2 vector multiply-adds a cycle.
  const double cost =
      static_cast<double>(conv.out_w) *
      static_cast<double>(conv.in_channels * conv.kernel_h * conv.kernel_w +
                          2) /
      2.0;
  dev.ParallelFor(conv.batch * conv.out_h, cost,
                  [&](int64_t begin, int64_t end) { rows(conv, begin, end); });
}

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
