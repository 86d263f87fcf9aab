// The CPU kernel of the resize ops nearest_interp_v2 and bilinear_interp_v2
// (spec §12). Private to kernels/cpu/plain.
//
// X is viewed as [outer, D, H, W, inner]: NCHW gives outer = N * C and
// inner = 1, NHWC outer = N and inner = C, so one loop serves both layouts
// and 3-, 4- and 5-D inputs (absent axes have size 1). Source indices and
// weights are computed once per axis, in float as Paddle does, so nearest
// picks exactly Paddle's pixels.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "framework/kernel_registry.h"
#include "operators/interp_op.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

enum class InterpMethod { kNearest, kBilinear };

namespace interp_detail {

using operators::InterpRatio;
using operators::NearestSourceIndex;

/// Linear taps of one axis: out[k] = (1 - lambda) * x[i0] + lambda * x[i1].
struct LinearTaps {
  std::vector<int64_t> i0;
  std::vector<int64_t> i1;
  std::vector<float> lambda;
};

inline LinearTaps MakeLinearTaps(
    int64_t in, int64_t out, float scale, bool align_corners, int align_mode) {
  const float ratio = InterpRatio(in, out, scale, align_corners);
  const bool half_pixel = align_mode == 0 && !align_corners;
  LinearTaps taps;
  taps.i0.resize(out);
  taps.i1.resize(out);
  taps.lambda.resize(out);
  for (int64_t k = 0; k < out; ++k) {
    // As Paddle: the half-pixel source is evaluated in double, truncated
    // for the index and stored as float for the weight; the asymmetric one
    // is a float product.
    int64_t i0;
    float src;
    if (half_pixel) {
      const double s = ratio * (k + 0.5) - 0.5;
      i0 = std::max<int64_t>(operators::SourceIndexAtMost(s, in - 1), 0);
      src = static_cast<float>(std::max(s, 0.0));
    } else {
      src = ratio * static_cast<float>(k);
      i0 = operators::SourceIndexAtMost(src, in - 1);
    }
    i0 = std::min(i0, in - 1);
    taps.i0[k] = i0;
    taps.i1[k] = std::min(i0 + 1, in - 1);
    // Past the input (an extreme scale) both taps are the last pixel:
    // weight it alone rather than by a huge or NaN lambda. (Inside, lambda
    // may round to exactly 1.)
    taps.lambda[k] =
        src < static_cast<float>(in) ? src - static_cast<float>(i0) : 0.f;
  }
  return taps;
}

/// Out = resize(X) with the view described in the file comment.
template <typename T, InterpMethod kMethod>
void Resize(const platform::CPUDeviceContext& dev,
            const operators::InterpGeometry& g,
            bool align_corners,
            int align_mode,
            const T* x,
            T* out) {
  const int64_t outer = g.channel_last ? g.batch : g.batch * g.channels;
  const int64_t inner = g.channel_last ? g.channels : 1;
  const int64_t in_d = g.in[0], in_h = g.in[1], in_w = g.in[2];
  const int64_t out_d = g.out[0], out_h = g.out[1], out_w = g.out[2];
  const int64_t in_row = in_w * inner;
  const int64_t in_block = in_d * in_h * in_row;
  const int64_t out_row = out_w * inner;
  const int64_t rows = outer * out_d * out_h;

  if constexpr (kMethod == InterpMethod::kNearest) {
    const auto sd = NearestSourceIndex(in_d, out_d, g.scale[0], align_corners);
    const auto sh = NearestSourceIndex(in_h, out_h, g.scale[1], align_corners);
    const auto sw = NearestSourceIndex(in_w, out_w, g.scale[2], align_corners);
    dev.ParallelFor(
        rows, static_cast<double>(out_row), [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) {
            const int64_t oh = r % out_h;
            const int64_t od = (r / out_h) % out_d;
            const int64_t o = r / (out_h * out_d);
            const T* src = x + o * in_block + (sd[od] * in_h + sh[oh]) * in_row;
            T* dst = out + r * out_row;
            if (inner == 1) {
              for (int64_t ow = 0; ow < out_w; ++ow) {
                dst[ow] = src[sw[ow]];
              }
            } else {
              for (int64_t ow = 0; ow < out_w; ++ow) {
                std::memcpy(dst + ow * inner, src + sw[ow] * inner,
                            inner * sizeof(T));
              }
            }
          }
        });
  } else {
    // Axes a rank-3/4 input lacks get one tap of weight 1; present axes
    // always two (even when lambda is 0), as Paddle sums all of them.
    auto axis_taps = [&](int axis) {
      return MakeLinearTaps(g.in[axis], g.out[axis], g.scale[axis],
                            align_corners, align_mode);
    };
    const bool has_d = g.spatial_rank == 3;
    const bool has_h = g.spatial_rank >= 2;
    const LinearTaps td = axis_taps(0);
    const LinearTaps th = axis_taps(1);
    const LinearTaps tw = axis_taps(2);
    const int64_t taps_per_row = (has_d ? 2 : 1) * (has_h ? 2 : 1);
    dev.ParallelFor(
        rows, 4.0 * taps_per_row * out_row, [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) {
            const int64_t oh = r % out_h;
            const int64_t od = (r / out_h) % out_d;
            const int64_t o = r / (out_h * out_d);
            // Up to four source rows and their weights.
            const T* src[4];
            T weight[4];
            int n = 0;
            for (int a = 0; a < (has_d ? 2 : 1); ++a) {
              const int64_t id = a == 0 ? td.i0[od] : td.i1[od];
              const float wd =
                  has_d ? (a == 0 ? 1.f - td.lambda[od] : td.lambda[od]) : 1.f;
              for (int b = 0; b < (has_h ? 2 : 1); ++b) {
                const int64_t ih = b == 0 ? th.i0[oh] : th.i1[oh];
                const float wh =
                    has_h ? (b == 0 ? 1.f - th.lambda[oh] : th.lambda[oh])
                          : 1.f;
                src[n] = x + o * in_block + (id * in_h + ih) * in_row;
                weight[n] = static_cast<T>(wd) * static_cast<T>(wh);
                ++n;
              }
            }
            T* dst = out + r * out_row;
            if (n == 2 && inner == 1) {
              // The common NCHW 2-D case, with the tap loops unrolled.
              const T* r0 = src[0];
              const T* r1 = src[1];
              const T w0 = weight[0];
              const T w1 = weight[1];
              for (int64_t ow = 0; ow < out_w; ++ow) {
                const int64_t x0 = tw.i0[ow];
                const int64_t x1 = tw.i1[ow];
                const T l1 = static_cast<T>(tw.lambda[ow]);
                const T l0 = static_cast<T>(1.f - tw.lambda[ow]);
                dst[ow] = w0 * (l0 * r0[x0] + l1 * r0[x1]) +
                          w1 * (l0 * r1[x0] + l1 * r1[x1]);
              }
              continue;
            }
            for (int64_t ow = 0; ow < out_w; ++ow) {
              const int64_t x0 = tw.i0[ow] * inner;
              const int64_t x1 = tw.i1[ow] * inner;
              const T l1 = static_cast<T>(tw.lambda[ow]);
              const T l0 = static_cast<T>(1.f - tw.lambda[ow]);
              for (int64_t c = 0; c < inner; ++c) {
                T v = T(0);
                for (int t = 0; t < n; ++t) {
                  v += weight[t] * (l0 * src[t][x0 + c] + l1 * src[t][x1 + c]);
                }
                dst[ow * inner + c] = v;
              }
            }
          }
        });
  }
}

}  // namespace interp_detail

/// nearest_interp_v2 / bilinear_interp_v2 on CPU.
template <typename T, InterpMethod kMethod>
class InterpKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const operators::InterpGeometry g = operators::ResolveInterp(ctx);
    operators::CheckInterpOutput(*out, g, ctx.op().Type());
    T* o = out->mutable_data<T>(ctx.GetPlace());
    if (out->numel() == 0) return;
    const T* in = x->data<T>();
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    // Same size on every axis: Paddle copies, whatever the scale says.
    if (g.in[0] == g.out[0] && g.in[1] == g.out[1] && g.in[2] == g.out[2]) {
      std::memcpy(o, in, x->numel() * sizeof(T));
      return;
    }
    interp_detail::Resize<T, kMethod>(dev, g, ctx.Attr<bool>("align_corners"),
                                      ctx.Attr<int>("align_mode"), in, o);
  }
};

}  // namespace kernels
}  // namespace paddle_lite
