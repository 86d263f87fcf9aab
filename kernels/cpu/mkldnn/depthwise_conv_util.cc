#include "kernels/cpu/mkldnn/depthwise_conv_util.h"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/mkldnn/own_loop_vectors.h"
#include "platform/cpu_isa.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

using own_loops::Act;
using own_loops::ActOf;

int64_t RoundUp16(int64_t n) { return (n + 15) / 16 * 16; }

// Output rows [begin, end) of a call (each set's RowsFor).
using RowsFn = void (*)(const DepthwiseConv&, int64_t, int64_t);

}  // namespace

namespace avx512 {
namespace {
#define PDLITE_OWN_TARGET PDLITE_AVX512
#include "kernels/cpu/mkldnn/depthwise_conv_loops-inl.h"  // NOLINT
#undef PDLITE_OWN_TARGET
}  // namespace
}  // namespace avx512

namespace avx2 {
namespace {
#define PDLITE_OWN_TARGET PDLITE_AVX2
#include "kernels/cpu/mkldnn/depthwise_conv_loops-inl.h"  // NOLINT
#undef PDLITE_OWN_TARGET
}  // namespace
}  // namespace avx2

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

DepthwiseRowsFn DepthwiseRowsFor(const operators::FusedActivation& activation) {
  Act act = Act::kNone;
  ActOf(activation, &act);
  return platform::WidestCpuIsa() == platform::CpuIsa::kAvx512
             ? avx512::RowsFor(act)
             : avx2::RowsFor(act);
}

void RunDepthwiseConv(const platform::CPUDeviceContext& dev,
                      const DepthwiseConv& conv) {
  const RowsFn rows = DepthwiseRowsFor(conv.activation);
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
