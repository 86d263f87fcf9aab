// pool2d on CPU (spec §3, the PHI kernel's window and divisor rules).
#include <algorithm>
#include <cfloat>
#include <string>
#include <type_traits>
#include <vector>

#include "framework/kernel_registry.h"
#include "kernels/cpu/image_channels_util.h"
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

// Reducers: a start value, how one input joins, and the final value from
// the window's divisor.
template <typename T>
struct MaxReducer {
  // Padding never wins, and an empty window yields -FLT_MAX (Paddle's
  // start value, also for double).
  static T Init() { return static_cast<T>(-FLT_MAX); }
  // Paddle's comparison, kept for its NaN behaviour.
  static T Add(T acc, T x) { return acc > x ? acc : x; }
  static T Finish(T acc, int64_t) { return acc; }
};

template <typename T>
struct AvgReducer {
  static T Init() { return T(0); }
  static T Add(T acc, T x) { return acc + x; }
  static T Finish(T acc, int64_t divisor) {
    return acc / static_cast<T>(divisor);
  }
};

/// NCHW: one work unit is one output row of one (image, channel) plane.
/// The window is reduced down the rows first, for all input columns at
/// once (a loop that vectorizes), then across the columns of each output.
template <typename T, typename R>
void PoolChannelFirst(const platform::CPUDeviceContext& dev,
                      const operators::Pool2DGeometry& g,
                      const Windows& wh,
                      const Windows& ww,
                      double cost,
                      const T* in,
                      T* out) {
  const int64_t rows = g.batch * g.channels * g.out_h;
  // Whether output column ow reads input columns 2 ow and 2 ow + 1 whole
  // (a 2x2 stride 2 pool without padding, the common downsampling).
  bool pairs = 2 * g.out_w <= g.in_w;
  for (int64_t ow = 0; pairs && ow < g.out_w; ++ow) {
    pairs =
        ww.begin[ow] == 2 * ow && ww.end[ow] == 2 * ow + 2 && ww.size[ow] == 2;
  }
  dev.ParallelFor(rows, cost * g.out_w, [&](int64_t begin, int64_t end) {
    std::vector<T> columns(g.in_w);
    for (int64_t r = begin; r < end; ++r) {
      const int64_t oh = r % g.out_h;
      const T* plane = in + (r / g.out_h) * g.in_h * g.in_w;
      std::fill(columns.begin(), columns.end(), R::Init());
      T* col = columns.data();
      for (int64_t h = wh.begin[oh]; h < wh.end[oh]; ++h) {
        const T* row = plane + h * g.in_w;
        for (int64_t w = 0; w < g.in_w; ++w) col[w] = R::Add(col[w], row[w]);
      }
      T* dst = out + r * g.out_w;
      if (pairs) {
        // Windows of two columns, side by side: a loop without bounds to
        // look up, which vectorizes.
        const int64_t divisor = wh.size[oh] * 2;
        for (int64_t ow = 0; ow < g.out_w; ++ow) {
          const T acc = R::Add(R::Add(R::Init(), col[2 * ow]), col[2 * ow + 1]);
          dst[ow] = R::Finish(acc, divisor);
        }
        continue;
      }
      for (int64_t ow = 0; ow < g.out_w; ++ow) {
        T acc = R::Init();
        for (int64_t w = ww.begin[ow]; w < ww.end[ow]; ++w) {
          acc = R::Add(acc, col[w]);
        }
        dst[ow] = R::Finish(acc, wh.size[oh] * ww.size[ow]);
      }
    }
  });
}

/// NHWC: one work unit is one output pixel, channels innermost.
template <typename T, typename R>
void PoolChannelLast(const platform::CPUDeviceContext& dev,
                     const operators::Pool2DGeometry& g,
                     const Windows& wh,
                     const Windows& ww,
                     double cost,
                     const T* in,
                     T* out) {
  const int64_t c = g.channels;
  const int64_t pixels = g.batch * g.out_h * g.out_w;
  dev.ParallelFor(pixels, cost * c, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const int64_t ow = p % g.out_w;
      const int64_t oh = (p / g.out_w) % g.out_h;
      const int64_t n = p / (g.out_w * g.out_h);
      const T* image = in + n * g.in_h * g.in_w * c;
      T* dst = out + p * c;
      std::fill(dst, dst + c, R::Init());
      for (int64_t h = wh.begin[oh]; h < wh.end[oh]; ++h) {
        for (int64_t w = ww.begin[ow]; w < ww.end[ow]; ++w) {
          const T* src = image + (h * g.in_w + w) * c;
          for (int64_t ch = 0; ch < c; ++ch) dst[ch] = R::Add(dst[ch], src[ch]);
        }
      }
      const int64_t divisor = wh.size[oh] * ww.size[ow];
      for (int64_t ch = 0; ch < c; ++ch) dst[ch] = R::Finish(dst[ch], divisor);
    }
  });
}

/// An input of no pixel (in_h or in_w 0): every window is empty, and each
/// output is what the loops above give for one, without their walk over
/// the other dim (a hostile [1, 1, 2^40, 0] made 2^40 empty rows).
template <typename T, typename R>
void PoolEmptyWindows(const operators::Pool2DGeometry& g,
                      const Windows& wh,
                      const Windows& ww,
                      T* out) {
  const int64_t planes = g.batch * g.channels;
  const int64_t pixels = g.out_h * g.out_w;
  for (int64_t i = 0; i < planes * pixels; ++i) {
    // NCHW: planes outside pixels; NHWC: pixels outside channels.
    const int64_t pixel =
        g.channel_last ? (i / g.channels) % pixels : i % pixels;
    const int64_t oh = pixel / g.out_w;
    const int64_t ow = pixel % g.out_w;
    out[i] = R::Finish(R::Init(), wh.size[oh] * ww.size[ow]);
  }
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
    if (g.in_h == 0 || g.in_w == 0) {
      if (is_max) {
        PoolEmptyWindows<T, MaxReducer<T>>(g, wh, ww, o);
      } else {
        PoolEmptyWindows<T, AvgReducer<T>>(g, wh, ww, o);
      }
      return;
    }
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    if constexpr (std::is_same_v<T, float>) {
      // An average over whole images (a squeeze-and-excitation block's
      // squeeze): the vectorized loops.
      if (!is_max && g.out_h == 1 && g.out_w == 1 && wh.begin[0] == 0 &&
          wh.end[0] == g.in_h && ww.begin[0] == 0 && ww.end[0] == g.in_w &&
          wh.size[0] == g.in_h && ww.size[0] == g.in_w) {
        ImageChannels shape;
        shape.images = g.batch;
        shape.channels = g.channels;
        shape.pixels = g.in_h * g.in_w;
        shape.channel_last = g.channel_last;
        AverageImages(dev, shape, in, o);
        return;
      }
    }
    // Rough inputs read per output, plus the per-output overhead.
    const double cost = static_cast<double>(g.in_h) * g.in_w /
                            std::max<int64_t>(g.out_h * g.out_w, 1) +
                        4;
    if (g.channel_last) {
      if (is_max) {
        PoolChannelLast<T, MaxReducer<T>>(dev, g, wh, ww, cost, in, o);
      } else {
        PoolChannelLast<T, AvgReducer<T>>(dev, g, wh, ww, cost, in, o);
      }
    } else {
      if (is_max) {
        PoolChannelFirst<T, MaxReducer<T>>(dev, g, wh, ww, cost, in, o);
      } else {
        PoolChannelFirst<T, AvgReducer<T>>(dev, g, wh, ww, cost, in, o);
      }
    }
  }
};

}  // namespace
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(pool2d,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::Pool2dKernel<float>,
                   paddle_lite::kernels::Pool2dKernel<double>);
