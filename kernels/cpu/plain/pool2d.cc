// pool2d on CPU (spec §3, the PHI kernel's window and divisor rules).
#include <algorithm>
#include <cfloat>
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "operators/conv_pool_shape.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {
namespace {

/// The input range [begin, end) of each output index along one dim, and
/// the divisor part that non-exclusive average pooling uses.
struct Windows {
  std::vector<int64_t> begin, end, size;
};

Windows MakeWindows(int64_t in,
                    int64_t out,
                    int64_t kernel,
                    int64_t stride,
                    int64_t pad_begin,
                    bool adaptive,
                    bool exclusive) {
  Windows w;
  w.begin.resize(out);
  w.end.resize(out);
  w.size.resize(out);
  for (int64_t o = 0; o < out; ++o) {
    int64_t b, e, size;
    if (adaptive) {
      b = o * in / out;
      e = ((o + 1) * in + out - 1) / out;
      size = e - b;
    } else {
      // Only the begin padding matters here, and the far bound is
      // in + pad_begin (not pad_end): that is what Paddle's kernel does.
      b = o * stride - pad_begin;
      e = std::min(b + kernel, in + pad_begin);
      size = e - b;  // before clipping to the input
      b = std::max<int64_t>(b, 0);
      e = std::min(e, in);
      if (exclusive) size = e - b;
    }
    w.begin[o] = b;
    w.end[o] = std::max(e, b);
    w.size[o] = size;
  }
  return w;
}

/// Paddle's comparison order: a NaN input propagates.
template <typename T>
inline T Max(T acc, T x) {
  return acc > x ? acc : x;
}

template <typename T>
class Pool2dKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const operators::Pool2DGeometry g =
        operators::ResolvePool2D(ctx.op(), x->dims());
    T* o = out->mutable_data<T>(ctx.GetPlace());
    if (out->numel() == 0) return;
    const T* in = x->data<T>();
    const bool is_max = ctx.Attr<std::string>("pooling_type") == "max";
    const bool exclusive = ctx.Attr<bool>("exclusive") || g.adaptive;
    const Windows wh = MakeWindows(g.in_h, g.out_h, g.kernel_h, g.stride_h,
                                   g.pad.top, g.adaptive, exclusive);
    const Windows ww = MakeWindows(g.in_w, g.out_w, g.kernel_w, g.stride_w,
                                   g.pad.left, g.adaptive, exclusive);
    // Padding never wins a max, and an empty window yields -FLT_MAX.
    const T lowest = static_cast<T>(-FLT_MAX);
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    const double cost = static_cast<double>(g.in_h) * g.in_w /
                            std::max<int64_t>(g.out_h * g.out_w, 1) +
                        4;
    const int64_t c = g.channels;

    if (!g.channel_last) {
      // One unit = one output row of one (image, channel) plane.
      const int64_t rows = g.batch * c * g.out_h;
      dev.ParallelFor(rows, cost * g.out_w, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const int64_t oh = r % g.out_h;
          const T* plane = in + (r / g.out_h) * g.in_h * g.in_w;
          T* dst = o + r * g.out_w;
          for (int64_t ow = 0; ow < g.out_w; ++ow) {
            T acc = is_max ? lowest : T(0);
            for (int64_t h = wh.begin[oh]; h < wh.end[oh]; ++h) {
              const T* row = plane + h * g.in_w;
              for (int64_t w = ww.begin[ow]; w < ww.end[ow]; ++w) {
                acc = is_max ? Max(acc, row[w]) : acc + row[w];
              }
            }
            dst[ow] = is_max ? acc
                             : acc / static_cast<T>(wh.size[oh] * ww.size[ow]);
          }
        }
      });
      return;
    }

    // NHWC: one unit = one output pixel, channels innermost.
    const int64_t pixels = g.batch * g.out_h * g.out_w;
    dev.ParallelFor(pixels, cost * c, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        const int64_t ow = p % g.out_w;
        const int64_t oh = (p / g.out_w) % g.out_h;
        const int64_t n = p / (g.out_w * g.out_h);
        const T* image = in + n * g.in_h * g.in_w * c;
        T* dst = o + p * c;
        std::fill(dst, dst + c, is_max ? lowest : T(0));
        for (int64_t h = wh.begin[oh]; h < wh.end[oh]; ++h) {
          for (int64_t w = ww.begin[ow]; w < ww.end[ow]; ++w) {
            const T* src = image + (h * g.in_w + w) * c;
            if (is_max) {
              for (int64_t ch = 0; ch < c; ++ch) {
                dst[ch] = Max(dst[ch], src[ch]);
              }
            } else {
              for (int64_t ch = 0; ch < c; ++ch) dst[ch] += src[ch];
            }
          }
        }
        if (!is_max) {
          const T divisor = static_cast<T>(wh.size[oh] * ww.size[ow]);
          for (int64_t ch = 0; ch < c; ++ch) dst[ch] /= divisor;
        }
      }
    });
  }
};

}  // namespace
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(pool2d, PLAIN, CPUPlace,
                   paddle_lite::kernels::Pool2dKernel<float>,
                   paddle_lite::kernels::Pool2dKernel<double>);
