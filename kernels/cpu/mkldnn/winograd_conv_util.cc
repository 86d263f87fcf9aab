#include "kernels/cpu/mkldnn/winograd_conv_util.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/cpu/mkldnn/own_conv_util.h"
#include "kernels/cpu/mkldnn/own_loop_vectors.h"
#include "kernels/cpu/mkldnn/pointwise_conv_util.h"
#include "platform/cpu_isa.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

using own_loops::Act;
using own_loops::ActOf;

constexpr int kPositions = 36;  // of a 6x6 tile

int64_t RoundUp16(int64_t n) { return (n + 15) / 16 * 16; }

// Tiles transformed and multiplied together: a multiple of 12 (the rows of
// the product loops' tiles divide it) whose transformed inputs and
// products take about 256 KB, so that they stay in the core's L2.
int64_t GroupTiles(const WinogradConv& conv) {
  const int64_t floats_per_tile =
      kPositions * (RoundUp16(conv.in_channels) + conv.out_channels);
  const int64_t tiles = (64 * 1024) / floats_per_tile / 12 * 12;
  return std::min<int64_t>(48, std::max<int64_t>(12, tiles));
}

// One thread's scratch, in floats from its start: its group's transformed
// inputs (kPositions * group rows of the padded input channels), their
// products (kPositions * group rows of out_channels), and one tile's input
// copied with zeros around (the patch: 6x6 pixels of padded channels);
// each part starts on 16 floats.
struct PartScratch {
  int64_t products;
  int64_t patch;
  int64_t floats;
};

PartScratch PartScratchOf(const WinogradConv& conv) {
  const int64_t rows = kPositions * GroupTiles(conv);
  const int64_t in_pad = RoundUp16(conv.in_channels);
  PartScratch part;
  part.products = rows * in_pad;
  part.patch = part.products + RoundUp16(rows * conv.out_channels);
  part.floats = part.patch + 36 * in_pad;
  return part;
}

}  // namespace

namespace avx512 {
namespace {
#define PDLITE_OWN_TARGET PDLITE_AVX512
#include "kernels/cpu/mkldnn/winograd_conv_loops-inl.h"  // NOLINT
#undef PDLITE_OWN_TARGET
}  // namespace
}  // namespace avx512

namespace avx2 {
namespace {
#define PDLITE_OWN_TARGET PDLITE_AVX2
#include "kernels/cpu/mkldnn/winograd_conv_loops-inl.h"  // NOLINT
#undef PDLITE_OWN_TARGET
}  // namespace
}  // namespace avx2

int64_t PackedWinogradFilterSize(int64_t in_channels, int64_t out_channels) {
  return kPositions * PackedPointwiseFilterSize(in_channels, out_channels);
}

void PackWinogradFilter(const float* filter,
                        int64_t in_channels,
                        int64_t out_channels,
                        float* packed) {
  // G of F(4x4, 3x3).
  static constexpr double kG[6][3] = {{1.0 / 4, 0, 0},
                                      {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                      {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                      {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                      {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                      {0, 0, 1}};
  const int64_t pairs = out_channels * in_channels;
  // [position][o][i]: each position's matrix as a 1x1 filter.
  std::vector<float> transformed(kPositions * pairs);
  for (int64_t pair = 0; pair < pairs; ++pair) {
    const float* g = filter + pair * 9;
    double gg[6][3];  // G g
    for (int i = 0; i < 6; ++i) {
      for (int kx = 0; kx < 3; ++kx) {
        gg[i][kx] = 0;
        for (int ky = 0; ky < 3; ++ky) gg[i][kx] += kG[i][ky] * g[ky * 3 + kx];
      }
    }
    for (int i = 0; i < 6; ++i) {
      for (int j = 0; j < 6; ++j) {
        double u = 0;  // (G g G^T)[i][j]
        for (int kx = 0; kx < 3; ++kx) u += gg[i][kx] * kG[j][kx];
        transformed[(i * 6 + j) * pairs + pair] = static_cast<float>(u);
      }
    }
  }
  const int64_t matrix = PackedPointwiseFilterSize(in_channels, out_channels);
  for (int position = 0; position < kPositions; ++position) {
    PackPointwiseFilter(transformed.data() + position * pairs, in_channels,
                        out_channels, packed + position * matrix);
  }
}

size_t WinogradScratchBytes(const WinogradConv& conv, int threads) {
  return sizeof(float) * static_cast<size_t>(std::max(1, threads)) *
         static_cast<size_t>(PartScratchOf(conv).floats);
}

void RunWinogradConv(const platform::CPUDeviceContext& dev,
                     const WinogradConv& conv,
                     void* scratch) {
  Act act = Act::kNone;
  ActOf(conv.activation, &act);
  const bool wide = platform::WidestCpuIsa() == platform::CpuIsa::kAvx512;
  const auto transform_input =
      wide ? avx512::TransformInput : avx2::TransformInput;
  const auto transform_output =
      wide ? avx512::OutputFor(act) : avx2::OutputFor(act);
  const PointwiseRowsFn multiply = PointwiseRowsFor({});
  const int64_t tiles =
      conv.batch * ((conv.out_h + 3) / 4) * ((conv.out_w + 3) / 4);
  const int64_t group = GroupTiles(conv);
  const int64_t groups = (tiles + group - 1) / group;
  const int64_t in_pad = RoundUp16(conv.in_channels);
  const int64_t matrix =
      PackedPointwiseFilterSize(conv.in_channels, conv.out_channels);
  // One part per thread, each with its own scratch.
  const int64_t parts = std::min<int64_t>(dev.num_threads(), groups);
  const PartScratch layout = PartScratchOf(conv);
  // Cycles of a part at about 16 multiply-adds a cycle.
  const double cost = static_cast<double>(groups) / parts * group * kPositions *
                      static_cast<double>(conv.in_channels + 8) *
                      static_cast<double>(conv.out_channels + 8) / 16.0;
  dev.ParallelFor(parts, cost, [&](int64_t begin, int64_t end) {
    for (int64_t part = begin; part < end; ++part) {
      float* v = static_cast<float*>(scratch) + part * layout.floats;
      float* products = v + layout.products;
      float* patch = v + layout.patch;
      for (int64_t g = groups * part / parts; g < groups * (part + 1) / parts;
           ++g) {
        const int64_t first = g * group;
        const int64_t count = std::min(group, tiles - first);
        transform_input(conv, first, count, in_pad, v, patch);
        PointwiseConv product;
        product.in_stride = in_pad;
        product.pixels = count;
        product.in_channels = conv.in_channels;
        product.out_channels = conv.out_channels;
        for (int position = 0; position < kPositions; ++position) {
          product.in = v + position * count * in_pad;
          product.packed_filter = conv.packed_filter + position * matrix;
          product.out = products + position * count * conv.out_channels;
          multiply(product, 0, count);
        }
        transform_output(conv, first, count, products);
      }
    }
  });
}

bool OwnWinogradPreferred() {
  // PDLITE_OWN_WINOGRAD=0 keeps oneDNN's Winograd where it has one (for
  // comparisons).
  static const bool preferred = [] {
    const char* env = std::getenv("PDLITE_OWN_WINOGRAD");
    return OwnConvLoopsAvailable() &&
           (env == nullptr || std::string(env) != "0");
  }();
  return preferred;
}

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
