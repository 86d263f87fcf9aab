#include "kernels/cpu/mkldnn/stem_conv_util.h"

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

// Output rows [begin, end) of a call (each set's RowsFor).
using RowsFn = void (*)(const StemConv&, int64_t, int64_t);

}  // namespace

namespace avx512 {
namespace {
namespace own_vectors = avx512;
#define PDLITE_OWN_TARGET PDLITE_AVX512
#include "kernels/cpu/mkldnn/stem_conv_loops-inl.h"  // NOLINT
#undef PDLITE_OWN_TARGET
}  // namespace
}  // namespace avx512

namespace avx2 {
namespace {
namespace own_vectors = avx2;
#define PDLITE_OWN_TARGET PDLITE_AVX2
#include "kernels/cpu/mkldnn/stem_conv_loops-inl.h"  // NOLINT
#undef PDLITE_OWN_TARGET
}  // namespace
}  // namespace avx2

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
  const RowsFn rows = platform::WidestCpuIsa() == platform::CpuIsa::kAvx512
                          ? avx512::RowsFor(act)
                          : avx2::RowsFor(act);
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
