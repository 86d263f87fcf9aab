#include "kernels/cpu/mkldnn/pointwise_conv_util.h"

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

// A filter panel holds up to kPanel output channels: 4 vectors of 16.
constexpr int64_t kPanel = 64;
// Rows (pixels) per task: a multiple of every tile's row count below.
constexpr int64_t kBlockRows = 48;

// Rows of one tile for panels of `vectors` vectors of 16 channels: the
// accumulators take 24 of the 32 vector registers, the filter's vectors
// and the broadcast input most of the rest.
constexpr int TileRows(int vectors) {
  return vectors == 4 ? 6 : vectors == 3 ? 8 : vectors == 2 ? 12 : 24;
}

// One tile: rows [row, row + rows) (rows <= TileRows(kVectors)) of panel
// `panel` (its first channel panel * kPanel). Rows past the end read the
// last row again and are not stored, so the loop has one shape.
template <int kVectors, Act kAct>
PDLITE_AVX512 void Tile(const PointwiseConv& p,
                        int64_t row,
                        int rows,
                        int64_t panel) {
  constexpr int kRows = TileRows(kVectors);
  constexpr int kWidth = 16 * kVectors;
  const int64_t k_count = p.in_channels;
  const int64_t first = panel * kPanel;
  const float* b = p.packed_filter + panel * kPanel * k_count;
  const int64_t left = p.out_channels - first - 16 * (kVectors - 1);
  const __mmask16 last =
      left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
  const float* a[kRows];
#pragma GCC unroll 24
  for (int r = 0; r < kRows; ++r) {
    a[r] = p.in + (row + std::min(r, rows - 1)) * p.in_stride;
  }
  __m512 acc[kRows][kVectors];
  __m512 start[kVectors];
#pragma GCC unroll 4
  for (int v = 0; v < kVectors; ++v) {
    const __mmask16 m = v == kVectors - 1 ? last : __mmask16(0xFFFF);
    start[v] = p.bias != nullptr
                   ? _mm512_maskz_loadu_ps(m, p.bias + first + 16 * v)
                   : _mm512_setzero_ps();
  }
#pragma GCC unroll 24
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) acc[r][v] = start[v];
  }
  for (int64_t k = 0; k < k_count; ++k) {
    __m512 w[kVectors];
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) {
      w[v] = _mm512_load_ps(b + k * kWidth + 16 * v);
    }
#pragma GCC unroll 24
    for (int r = 0; r < kRows; ++r) {
      const __m512 x = _mm512_set1_ps(a[r][k]);
#pragma GCC unroll 4
      for (int v = 0; v < kVectors; ++v) {
        acc[r][v] = _mm512_fmadd_ps(x, w[v], acc[r][v]);
      }
    }
  }
#pragma GCC unroll 24
  for (int r = 0; r < kRows; ++r) {
    if (r >= rows) break;
    float* c = p.out + (row + r) * p.out_channels + first;
    const float* res = p.residual == nullptr
                           ? nullptr
                           : p.residual + (row + r) * p.residual_stride + first;
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) {
      const __mmask16 m = v == kVectors - 1 ? last : __mmask16(0xFFFF);
      __m512 x = acc[r][v];
      if (res != nullptr) {
        x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(m, res + 16 * v));
      }
      _mm512_mask_storeu_ps(
          c + 16 * v, m,
          Activate<kAct>(x, p.activation.alpha, p.activation.beta));
    }
  }
}

// Rows [begin, end) of one panel, a tile at a time.
template <int kVectors, Act kAct>
PDLITE_AVX512 void Panel(const PointwiseConv& p,
                         int64_t begin,
                         int64_t end,
                         int64_t panel) {
  constexpr int kRows = TileRows(kVectors);
  for (int64_t row = begin; row < end; row += kRows) {
    Tile<kVectors, kAct>(
        p, row, static_cast<int>(std::min<int64_t>(kRows, end - row)), panel);
  }
}

// Rows [begin, end), kBlockRows at a time, each through every panel.
template <Act kAct>
void Block(const PointwiseConv& p, int64_t begin, int64_t end) {
  const int64_t panels = (p.out_channels + kPanel - 1) / kPanel;
  for (int64_t from = begin; from < end; from += kBlockRows) {
    const int64_t to = std::min(end, from + kBlockRows);
    for (int64_t panel = 0; panel < panels; ++panel) {
      const int64_t width = std::min(kPanel, p.out_channels - panel * kPanel);
      switch ((width + 15) / 16) {
        case 4:
          Panel<4, kAct>(p, from, to, panel);
          break;
        case 3:
          Panel<3, kAct>(p, from, to, panel);
          break;
        case 2:
          Panel<2, kAct>(p, from, to, panel);
          break;
        default:
          Panel<1, kAct>(p, from, to, panel);
          break;
      }
    }
  }
}

using BlockFn = void (*)(const PointwiseConv&, int64_t, int64_t);

BlockFn BlockFor(Act act) {
  return avx512::WithAct(
      act, [](auto kind) -> BlockFn { return Block<decltype(kind)::value>; });
}

}  // namespace

int64_t PackedPointwiseFilterSize(int64_t in_channels, int64_t out_channels) {
  const int64_t full = out_channels / kPanel;
  const int64_t rest = out_channels - full * kPanel;
  return in_channels * (full * kPanel + (rest + 15) / 16 * 16);
}

void PackPointwiseFilter(const float* filter,
                         int64_t in_channels,
                         int64_t out_channels,
                         float* packed) {
  std::memset(
      packed, 0,
      sizeof(float) * PackedPointwiseFilterSize(in_channels, out_channels));
  for (int64_t first = 0; first < out_channels; first += kPanel) {
    const int64_t width = std::min(kPanel, out_channels - first);
    const int64_t stride = (width + 15) / 16 * 16;
    float* panel = packed + first * in_channels;
    for (int64_t o = 0; o < width; ++o) {
      const float* row = filter + (first + o) * in_channels;
      for (int64_t i = 0; i < in_channels; ++i) panel[i * stride + o] = row[i];
    }
  }
}

void RunPointwiseConv(const platform::CPUDeviceContext& dev,
                      const PointwiseConv& conv) {
  Act act = Act::kNone;
  ActOf(conv.activation, &act);
  const BlockFn block = BlockFor(act);
  const int64_t pixels = conv.pixels;
  const int64_t blocks = (pixels + kBlockRows - 1) / kBlockRows;
  // About 32 multiply-adds a cycle.
  const double cost = static_cast<double>(kBlockRows) *
                      static_cast<double>(conv.in_channels + 4) *
                      static_cast<double>(conv.out_channels) / 32.0;
  dev.ParallelFor(blocks, cost, [&](int64_t begin, int64_t end) {
    block(conv, begin * kBlockRows, std::min(pixels, end * kBlockRows));
  });
}

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
