#include "kernels/cpu/image_channels_util.h"

#include <algorithm>

#include "platform/cpu_isa.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {
namespace {

// The bodies, inlined into one function per instruction set below and
// vectorized by the compiler for each (-O3).
__attribute__((always_inline)) inline void SumRowsBody(
    const float* __restrict src,
    int64_t rows,
    int64_t width,
    int64_t stride,
    float* __restrict sum) {
  for (int64_t k = 0; k < width; ++k) sum[k] = 0.f;
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = src + r * stride;
    for (int64_t k = 0; k < width; ++k) sum[k] += row[k];
  }
}

// The sum of n contiguous floats, in 64 lanes (four vectors of 16 on
// AVX-512) so that consecutive adds do not wait on each other; the lanes
// live in registers, which SumRowsBody's `sum` through memory does not.
__attribute__((always_inline)) inline float SumPlaneBody(
    const float* __restrict src, int64_t n) {
  constexpr int64_t kLanes = 64;
  float lanes[kLanes] = {};
  const int64_t whole = n / kLanes * kLanes;
  for (int64_t i = 0; i < whole; i += kLanes) {
    for (int64_t k = 0; k < kLanes; ++k) lanes[k] += src[i + k];
  }
  // Folded in halves, each step one vector add.
  for (int64_t k = 0; k < 32; ++k) lanes[k] += lanes[k + 32];
  for (int64_t k = 0; k < 16; ++k) lanes[k] += lanes[k + 16];
  const int64_t sixteens = n / 16 * 16;
  for (int64_t i = whole; i < sixteens; i += 16) {
    for (int64_t k = 0; k < 16; ++k) lanes[k] += src[i + k];
  }
  for (int64_t k = 0; k < 8; ++k) lanes[k] += lanes[k + 8];
  for (int64_t k = 0; k < 4; ++k) lanes[k] += lanes[k + 4];
  float total = (lanes[0] + lanes[2]) + (lanes[1] + lanes[3]);
  for (int64_t i = sixteens; i < n; ++i) total += src[i];
  return total;
}

// out[i] = src[i] * factor for i < n; `out` may be `src`.
__attribute__((always_inline)) inline void ScalePlaneBody(const float* src,
                                                          int64_t n,
                                                          float factor,
                                                          float* out) {
  if (out == src) {
    for (int64_t i = 0; i < n; ++i) out[i] *= factor;
    return;
  }
  const float* __restrict in = src;
  float* __restrict to = out;
  for (int64_t i = 0; i < n; ++i) to[i] = in[i] * factor;
}

__attribute__((always_inline)) inline void MultiplyRowsBody(
    const float* src,
    int64_t rows,
    int64_t width,
    const float* __restrict scale,
    float* out) {
  if (out == src) {
    // In place: one pointer, so nothing for the vectorizer to check.
    for (int64_t r = 0; r < rows; ++r) {
      float* row = out + r * width;
      for (int64_t k = 0; k < width; ++k) row[k] *= scale[k];
    }
    return;
  }
  const float* __restrict in = src;
  float* __restrict to = out;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < width; ++k) {
      to[r * width + k] = in[r * width + k] * scale[k];
    }
  }
}

// One definition of both loops per instruction set.
#define PDLITE_VECTOR_LOOPS(SUFFIX, TARGET)                                  \
  TARGET void SumRows##SUFFIX(const float* src, int64_t rows, int64_t width, \
                              int64_t stride, float* sum) {                  \
    SumRowsBody(src, rows, width, stride, sum);                              \
  }                                                                          \
  TARGET float SumPlane##SUFFIX(const float* src, int64_t n) {               \
    return SumPlaneBody(src, n);                                             \
  }                                                                          \
  TARGET void ScalePlane##SUFFIX(const float* src, int64_t n, float factor,  \
                                 float* out) {                               \
    ScalePlaneBody(src, n, factor, out);                                     \
  }                                                                          \
  TARGET void MultiplyRows##SUFFIX(const float* src, int64_t rows,           \
                                   int64_t width, const float* scale,        \
                                   float* out) {                             \
    MultiplyRowsBody(src, rows, width, scale, out);                          \
  }

PDLITE_VECTOR_LOOPS(Avx512, __attribute__((target("avx512f"))))
PDLITE_VECTOR_LOOPS(Avx2, __attribute__((target("avx2"))))
PDLITE_VECTOR_LOOPS(Baseline, )

#undef PDLITE_VECTOR_LOOPS

// The loops of one instruction set.
struct VectorLoops {
  // sum[k] = the sum over r < rows of src[r * stride + k], for k < width.
  void (*sum_rows)(const float* src,
                   int64_t rows,
                   int64_t width,
                   int64_t stride,
                   float* sum);
  // The sum of src[0, n).
  float (*sum_plane)(const float* src, int64_t n);
  // out[i] = src[i] * factor for i < n; `out` may be `src`.
  void (*scale_plane)(const float* src, int64_t n, float factor, float* out);
  // out[r * width + k] = src[r * width + k] * scale[k]; `out` may be `src`.
  void (*multiply_rows)(const float* src,
                        int64_t rows,
                        int64_t width,
                        const float* scale,
                        float* out);
};

// The widest the CPU runs, picked once at load.
VectorLoops PickVectorLoops() {
  switch (platform::WidestCpuIsa()) {
    case platform::CpuIsa::kAvx512:
      return {SumRowsAvx512, SumPlaneAvx512, ScalePlaneAvx512,
              MultiplyRowsAvx512};
    case platform::CpuIsa::kAvx2:
      return {SumRowsAvx2, SumPlaneAvx2, ScalePlaneAvx2, MultiplyRowsAvx2};
    default:
      return {SumRowsBaseline, SumPlaneBaseline, ScalePlaneBaseline,
              MultiplyRowsBaseline};
  }
}

const VectorLoops kLoops = PickVectorLoops();

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t RoundUp(int64_t a, int64_t to) { return CeilDiv(a, to) * to; }

// Rows of 16 floats (a cache line): the unit work is cut into and the
// lanes a channel-first plane is added up in.
constexpr int64_t kLine = 16;

}  // namespace

void AverageImages(const platform::CPUDeviceContext& dev,
                   const ImageChannels& shape,
                   const float* src,
                   float* out) {
  const float mean = 1.f / static_cast<float>(shape.pixels);
  const int64_t c = shape.channels;
  const int64_t pixels = shape.pixels;
  if (shape.channel_last) {
    // Each task adds up the pixels of one image for a part of its channels
    // (whole rows of `c` when one thread runs: the loop's set-up is paid
    // per row), parts cut at whole cache lines.
    const int64_t parts =
        std::max<int64_t>(1, std::min<int64_t>(dev.num_threads(), c / kLine));
    const int64_t part = RoundUp(CeilDiv(c, parts), kLine);
    dev.ParallelFor(shape.images * parts, 1.0 * pixels * part,
                    [&](int64_t begin, int64_t end) {
                      for (int64_t t = begin; t < end; ++t) {
                        const int64_t n = t / parts;
                        const int64_t k0 = t % parts * part;
                        const int64_t width = std::min(part, c - k0);
                        if (width <= 0) continue;
                        float* sum = out + n * c + k0;
                        kLoops.sum_rows(src + n * pixels * c + k0, pixels,
                                        width, c, sum);
                        for (int64_t k = 0; k < width; ++k) sum[k] *= mean;
                      }
                    });
    return;
  }
  // Channel-first: each plane is contiguous.
  dev.ParallelFor(
      shape.images * c, 1.0 * pixels, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          out[i] = kLoops.sum_plane(src + i * pixels, pixels) * mean;
        }
      });
}

void ScaleChannels(const platform::CPUDeviceContext& dev,
                   const ImageChannels& shape,
                   bool per_image,
                   const float* src,
                   const float* factors,
                   float* out) {
  const int64_t c = shape.channels;
  const int64_t pixels = shape.pixels;
  if (shape.channel_last) {
    // A row of `c` factors per pixel; few channels make short rows whose
    // loop set-up would cost more than their work, so `group` pixels go
    // in one row of `group * c` with the factors repeated to match.
    constexpr int64_t kMaxRow = 128;
    const int64_t group =
        c >= 4 * kLine ? 1 : std::max<int64_t>(1, 4 * kLine / c);
    const int64_t row = group * c;
    // Pixels a task takes: a whole image on one thread, else cut in parts.
    const int64_t parts = std::max<int64_t>(
        1, std::min<int64_t>(dev.num_threads(), pixels / (group * kLine)));
    const int64_t part = RoundUp(CeilDiv(pixels, parts), group);
    dev.ParallelFor(
        shape.images * parts, 1.0 * part * c, [&](int64_t begin, int64_t end) {
          float repeated[kMaxRow];
          for (int64_t t = begin; t < end; ++t) {
            const int64_t n = t / parts;
            const int64_t p0 = t % parts * part;
            const int64_t count = std::min(part, pixels - p0);
            if (count <= 0) continue;
            const float* f = factors + (per_image ? n * c : 0);
            const float* row_factors = f;
            if (group > 1) {
              for (int64_t k = 0; k < row; ++k) repeated[k] = f[k % c];
              row_factors = repeated;
            }
            const int64_t offset = (n * pixels + p0) * c;
            const int64_t rows = count / group;
            kLoops.multiply_rows(src + offset, rows, row, row_factors,
                                 out + offset);
            const int64_t done = rows * row;
            kLoops.multiply_rows(src + offset + done, count - rows * group, c,
                                 f, out + offset + done);
          }
        });
    return;
  }
  // Channel-first: one factor per contiguous plane.
  dev.ParallelFor(
      shape.images * c, 1.0 * pixels, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          const int64_t n = i / c;
          const float factor = factors[(per_image ? n * c : 0) + i % c];
          kLoops.scale_plane(src + i * pixels, pixels, factor,
                             out + i * pixels);
        }
      });
}

}  // namespace kernels
}  // namespace paddle_lite
