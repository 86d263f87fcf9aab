// The CUDA kernel of the resize ops nearest_interp_v2 and
// bilinear_interp_v2 (spec §12), with the source-index arithmetic of the
// CPU kernel (kernels/cpu/plain/interp_kernel.h) evaluated per output
// element: the same float and double operations in the same order, with
// rounded intrinsics where nvcc would otherwise fuse a multiply and an add
// (the CPU rounds both), so nearest picks the same pixels and bilinear
// the same taps and weights. Private to kernels/cuda/plain.
//
// X is viewed as [outer, D, H, W, inner]: NCHW gives outer = N * C and
// inner = 1, NHWC outer = N and inner = C; absent axes have size 1.
#pragma once

#include <cstdint>

#include "kernels/cuda/cuda_helper.h"
#include "kernels/cuda/plain/host_values_util.h"
#include "operators/interp_op.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

enum class InterpMethod { kNearest, kBilinear };

/// One spatial axis: sizes and the source-coordinate ratio.
struct InterpAxis {
  int64_t in = 1;
  int64_t out = 1;
  float ratio = 0.f;
};

struct InterpParams {
  InterpAxis axis[3];  // d, h, w
  int64_t inner = 1;   ///< channels for NHWC, else 1
  bool has_d = false;
  bool has_h = false;
  bool align_corners = true;
  bool half_pixel = false;  // bilinear: align_mode 0 without align_corners
};

/// As the CPU kernel: 0 for a 1-pixel output, corner to corner with
/// align_corners, else 1 / scale when a scale was given, else in / out.
/// Host code, so it rounds as the CPU kernel does.
inline float InterpRatio(int64_t in,
                         int64_t out,
                         float scale,
                         bool align_corners) {
  if (out <= 1) return 0.f;
  if (align_corners) {
    return static_cast<float>(in - 1) / static_cast<float>(out - 1);
  }
  return scale > 0.f ? static_cast<float>(1.0 / scale)
                     : static_cast<float>(in) / static_cast<float>(out);
}

/// A source position truncated to an index, at most `last`, as
/// operators::SourceIndexAtMost on the host: a position past it (an extreme
/// scale) or NaN is `last`.
__device__ inline int64_t SourceIndexAtMostOnDevice(double pos, int64_t last) {
  return pos < static_cast<double>(last) ? static_cast<int64_t>(pos) : last;
}

/// Nearest source index of output index k, clamped to the last pixel.
__device__ inline int64_t NearestSource(const InterpAxis& a,
                                        int64_t k,
                                        bool align_corners) {
  const float pos = __fmul_rn(a.ratio, static_cast<float>(k));
  // Paddle's + 0.5 is a double addition.
  return SourceIndexAtMostOnDevice(
      align_corners ? static_cast<double>(pos) + 0.5 : pos, a.in - 1);
}

/// Linear taps of output index k: (1 - lambda) * x[i0] + lambda * x[i1].
__device__ inline void LinearTaps(const InterpAxis& a,
                                  int64_t k,
                                  bool half_pixel,
                                  int64_t* i0,
                                  int64_t* i1,
                                  float* lambda) {
  int64_t lo;
  float src;
  if (half_pixel) {
    // Evaluated in double, truncated for the index, stored as float for
    // the weight.
    const double s = __dadd_rn(
        __dmul_rn(static_cast<double>(a.ratio), static_cast<double>(k) + 0.5),
        -0.5);
    lo = SourceIndexAtMostOnDevice(s, a.in - 1);
    lo = lo > 0 ? lo : 0;
    src = static_cast<float>(s > 0.0 ? s : 0.0);
  } else {
    src = __fmul_rn(a.ratio, static_cast<float>(k));
    lo = SourceIndexAtMostOnDevice(src, a.in - 1);
  }
  lo = lo < a.in - 1 ? lo : a.in - 1;
  *i0 = lo;
  *i1 = lo + 1 < a.in - 1 ? lo + 1 : a.in - 1;
  // Past the input both taps are the last pixel: weight it alone, as the
  // host does, rather than by a huge (or NaN) lambda.
  // (Inside, lambda may round to exactly 1.)
  *lambda = src < static_cast<float>(a.in) ? src - static_cast<float>(lo) : 0.f;
}

// Unfused float arithmetic (see the file comment).
__device__ inline float MulRn(float a, float b) { return __fmul_rn(a, b); }
__device__ inline float AddRn(float a, float b) { return __fadd_rn(a, b); }
__device__ inline double MulRn(double a, double b) { return __dmul_rn(a, b); }
__device__ inline double AddRn(double a, double b) { return __dadd_rn(a, b); }

template <typename T, InterpMethod kMethod>
__global__ void InterpKernel(const T* x, T* out, InterpParams p, int64_t n) {
  const InterpAxis& ad = p.axis[0];
  const InterpAxis& ah = p.axis[1];
  const InterpAxis& aw = p.axis[2];
  const int64_t in_row = aw.in * p.inner;
  const int64_t in_block = ad.in * ah.in * in_row;
  PDLITE_CUDA_KERNEL_LOOP(i, n) {
    int64_t rest = i;
    const int64_t c = rest % p.inner;
    rest /= p.inner;
    const int64_t ow = rest % aw.out;
    rest /= aw.out;
    const int64_t oh = rest % ah.out;
    rest /= ah.out;
    const int64_t od = rest % ad.out;
    const int64_t o = rest / ad.out;
    const T* base = x + o * in_block + c;
    if constexpr (kMethod == InterpMethod::kNearest) {
      const int64_t sd = NearestSource(ad, od, p.align_corners);
      const int64_t sh = NearestSource(ah, oh, p.align_corners);
      const int64_t sw = NearestSource(aw, ow, p.align_corners);
      out[i] = base[(sd * ah.in + sh) * in_row + sw * p.inner];
    } else {
      int64_t d0, d1, h0, h1, w0, w1;
      float ld, lh, lw;
      LinearTaps(ad, od, p.half_pixel, &d0, &d1, &ld);
      LinearTaps(ah, oh, p.half_pixel, &h0, &h1, &lh);
      LinearTaps(aw, ow, p.half_pixel, &w0, &w1, &lw);
      const T l1 = static_cast<T>(lw);
      const T l0 = static_cast<T>(1.f - lw);
      const int64_t x0 = w0 * p.inner;
      const int64_t x1 = w1 * p.inner;
      // Axes the input lacks get one tap of weight 1; present axes always
      // two (even when lambda is 0), summed in the CPU kernel's order.
      T v = T(0);
      for (int a = 0; a < (p.has_d ? 2 : 1); ++a) {
        const int64_t id = a == 0 ? d0 : d1;
        const float wd = p.has_d ? (a == 0 ? 1.f - ld : ld) : 1.f;
        for (int b = 0; b < (p.has_h ? 2 : 1); ++b) {
          const int64_t ih = b == 0 ? h0 : h1;
          const float wh = p.has_h ? (b == 0 ? 1.f - lh : lh) : 1.f;
          const T weight = MulRn(static_cast<T>(wd), static_cast<T>(wh));
          const T* src = base + (id * ah.in + ih) * in_row;
          const T row = AddRn(MulRn(l0, src[x0]), MulRn(l1, src[x1]));
          v = AddRn(v, MulRn(weight, row));
        }
      }
      out[i] = v;
    }
  }
}

/// nearest_interp_v2 / bilinear_interp_v2 on the CUDA place.
template <typename T, InterpMethod kMethod>
class InterpCUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const auto& dev = DeviceContextOf(ctx);
    // The size inputs decide the ratios, so they are read on the host (a
    // synchronous copy when they are on the device) by the function shape
    // inference used.
    const HostInputsContext host_ctx(ctx, {"OutSize", "SizeTensor", "Scale"});
    const operators::InterpGeometry g =
        operators::ResolveInterp(host_ctx.context());
    operators::CheckInterpOutput(*out, g, ctx.op().Type());
    T* o = AllocateOutput<T>(ctx, out);
    const int64_t n = out->numel();
    if (n == 0) return;
    // Same size on every axis: Paddle copies, whatever the scale says.
    if (g.in[0] == g.out[0] && g.in[1] == g.out[1] && g.in[2] == g.out[2]) {
      PDLITE_CUDA_CHECK(cudaMemcpyAsync(o, x->data<T>(), n * sizeof(T),
                                        cudaMemcpyDeviceToDevice,
                                        dev.stream()));
      return;
    }
    const bool align_corners = ctx.Attr<bool>("align_corners");
    InterpParams p;
    for (int a = 0; a < 3; ++a) {
      p.axis[a].in = g.in[a];
      p.axis[a].out = g.out[a];
      p.axis[a].ratio =
          InterpRatio(g.in[a], g.out[a], g.scale[a], align_corners);
    }
    p.inner = g.channel_last ? g.channels : 1;
    p.has_d = g.spatial_rank == 3;
    p.has_h = g.spatial_rank >= 2;
    p.align_corners = align_corners;
    p.half_pixel = ctx.Attr<int>("align_mode") == 0 && !align_corners;
    InterpKernel<T, kMethod>
        <<<BlocksFor(n), kThreadsPerBlock, 0, dev.stream()>>>(x->data<T>(), o,
                                                              p, n);
    PDLITE_CUDA_LAUNCH_CHECK();
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite
