#include "kernels/cpu/mkldnn/pointwise_conv_util.h"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/mkldnn/own_loop_vectors.h"
#include "operators/conv_pool_shape.h"
#include "platform/cpu_isa.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

using own_loops::Act;
using own_loops::ActOf;

// A filter panel holds up to kPanel output channels: 4 vectors of 16.
constexpr int64_t kPanel = 64;
// Rows (pixels) per task: a multiple of every tile's row count below.
constexpr int64_t kBlockRows = 48;

// Rows [begin, end) of a call, through every panel (each set's BlockFor).
using BlockFn = PointwiseRowsFn;

}  // namespace

namespace avx512 {
namespace {
#define PDLITE_OWN_TARGET PDLITE_AVX512
#include "kernels/cpu/mkldnn/pointwise_conv_loops-inl.h"  // NOLINT
#undef PDLITE_OWN_TARGET
}  // namespace
}  // namespace avx512

namespace avx2 {
namespace {
#define PDLITE_OWN_TARGET PDLITE_AVX2
#include "kernels/cpu/mkldnn/pointwise_conv_loops-inl.h"  // NOLINT
#undef PDLITE_OWN_TARGET
}  // namespace
}  // namespace avx2

bool PointwiseGeometry(const operators::Conv2DGeometry& g) {
  return g.kernel_h == 1 && g.kernel_w == 1 && g.stride_h == 1 &&
         g.stride_w == 1 && g.groups == 1 && g.pad.top == 0 &&
         g.pad.bottom == 0 && g.pad.left == 0 && g.pad.right == 0;
}

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

PointwiseRowsFn PointwiseRowsFor(const operators::FusedActivation& activation) {
  Act act = Act::kNone;
  ActOf(activation, &act);
  return platform::WidestCpuIsa() == platform::CpuIsa::kAvx512
             ? avx512::BlockFor(act)
             : avx2::BlockFor(act);
}

void RunPointwiseConv(const platform::CPUDeviceContext& dev,
                      const PointwiseConv& conv) {
  const BlockFn block = PointwiseRowsFor(conv.activation);
  const int64_t pixels = conv.pixels;
  const int64_t blocks = (pixels + kBlockRows - 1) / kBlockRows;
  // About 32 multiply-adds a cycle (16 on AVX2: the cost only splits the
  // rows among threads, so one figure serves both).
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
