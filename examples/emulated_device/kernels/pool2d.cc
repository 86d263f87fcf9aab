// pool2d on the emu device (spec §3: max and average, global, adaptive,
// exclusive and ceil mode), geometry from the core's
// operators/conv_pool_shape.h.
#include <algorithm>
#include <cfloat>
#include <string>

#include "emu_device.h"
#include "framework/kernel_registry.h"
#include "operators/conv_pool_shape.h"

namespace emu {

using paddle_lite::framework::ExecutionContext;
using paddle_lite::framework::Tensor;

namespace {

/// The input range [begin, end) pooled into output index `o` along one
/// dim, and the divisor's factor for non-exclusive averaging.
struct Window {
  int64_t begin, end, size;
};

Window WindowOf(int64_t o,
                int64_t in,
                int64_t out,
                int64_t kernel,
                int64_t stride,
                int64_t pad_begin,
                bool adaptive) {
  if (adaptive) {
    int64_t b = o * in / out, e = ((o + 1) * in + out - 1) / out;
    return {b, e, e - b};
  }
  // Only the begin padding counts, and the far bound is in + pad_begin:
  // Paddle's kernel rule (spec §3).
  int64_t b = o * stride - pad_begin;
  int64_t e = std::min(b + kernel, in + pad_begin);
  int64_t size = e - b;  // before clipping
  b = std::max<int64_t>(b, 0);
  e = std::min(e, in);
  return {b, std::max(e, b), size};
}

}  // namespace

template <typename T>
class Pool2DKernel : public paddle_lite::framework::OpKernel<T> {
 public:
  void Compute(const ExecutionContext& ctx) const override {
    const Tensor* x = ctx.Input<Tensor>("X");
    Tensor* out = ctx.Output<Tensor>("Out");
    CheckOnDevice(*x, "pool2d", "X");
    const auto g = paddle_lite::operators::ResolvePool2D(ctx.op(), x->dims());
    const bool is_max = ctx.Attr<std::string>("pooling_type") == "max";
    const bool exclusive = ctx.Attr<bool>("exclusive") || g.adaptive;

    const T* in = x->data<T>();
    T* o = out->mutable_data<T>(ctx.GetPlace());
    const int64_t C = g.channels, H = g.in_h, W = g.in_w;
    const int64_t OH = g.out_h, OW = g.out_w;
    for (int64_t n = 0; n < g.batch; ++n) {
      for (int64_t c = 0; c < C; ++c) {
        for (int64_t oh = 0; oh < OH; ++oh) {
          const Window wh = WindowOf(oh, H, OH, g.kernel_h, g.stride_h,
                                     g.pad.top, g.adaptive);
          for (int64_t ow = 0; ow < OW; ++ow) {
            const Window ww = WindowOf(ow, W, OW, g.kernel_w, g.stride_w,
                                       g.pad.left, g.adaptive);
            T acc = is_max ? static_cast<T>(-FLT_MAX) : T(0);
            for (int64_t h = wh.begin; h < wh.end; ++h) {
              for (int64_t w = ww.begin; w < ww.end; ++w) {
                const T v = in[g.channel_last ? ((n * H + h) * W + w) * C + c
                                              : ((n * C + c) * H + h) * W + w];
                acc = is_max ? (acc > v ? acc : v) : acc + v;
              }
            }
            if (!is_max) {
              const int64_t divisor =
                  exclusive ? (wh.end - wh.begin) * (ww.end - ww.begin)
                            : wh.size * ww.size;
              acc /= static_cast<T>(divisor);
            }
            o[g.channel_last ? ((n * OH + oh) * OW + ow) * C + c
                             : ((n * C + c) * OH + oh) * OW + ow] = acc;
          }
        }
      }
    }
    ctx.device_context<EmuDeviceContext>().Launch();
  }
};

}  // namespace emu

REGISTER_OP_DEVICE_KERNEL(pool2d,
                          PLAIN,
                          emu::kDeviceType,
                          emu::Pool2DKernel<float>);
