// conv2d on the emu device: grouped 2-D cross-correlation (spec §2.2) as a
// plain loop, with the geometry resolved by the core's
// operators/conv_pool_shape.h so padding rules match the CPU kernels.
#include "emu_device.h"
#include "framework/kernel_registry.h"
#include "operators/conv_pool_shape.h"

namespace emu {

using paddle_lite::framework::ExecutionContext;
using paddle_lite::framework::Tensor;

template <typename T>
class Conv2DKernel : public paddle_lite::framework::OpKernel<T> {
 public:
  void Compute(const ExecutionContext& ctx) const override {
    const Tensor* input = ctx.Input<Tensor>("Input");
    const Tensor* filter = ctx.Input<Tensor>("Filter");
    const Tensor* bias = ctx.Input<Tensor>("Bias");  // bound by fusion
    Tensor* output = ctx.Output<Tensor>("Output");
    CheckOnDevice(*input, "conv2d", "Input");
    CheckOnDevice(*filter, "conv2d", "Filter");
    if (bias) CheckOnDevice(*bias, "conv2d", "Bias");
    const auto g = paddle_lite::operators::ResolveConv2D(
        ctx.op(), input->dims(), filter->dims());

    const T* in = input->data<T>();
    const T* w = filter->data<T>();
    const T* b = bias ? bias->data<T>() : nullptr;
    T* out = output->mutable_data<T>(ctx.GetPlace());
    const int64_t C = g.in_channels, H = g.in_h, W = g.in_w;
    const int64_t M = g.out_channels, OH = g.out_h, OW = g.out_w;
    const int64_t Cg = C / g.groups, Mg = M / g.groups;
    auto at_in = [&](int64_t n, int64_t c, int64_t h, int64_t x) {
      return g.channel_last ? ((n * H + h) * W + x) * C + c
                            : ((n * C + c) * H + h) * W + x;
    };
    auto at_out = [&](int64_t n, int64_t m, int64_t h, int64_t x) {
      return g.channel_last ? ((n * OH + h) * OW + x) * M + m
                            : ((n * M + m) * OH + h) * OW + x;
    };
    for (int64_t n = 0; n < g.batch; ++n) {
      for (int64_t m = 0; m < M; ++m) {
        const int64_t c0 = m / Mg * Cg;  // first input channel of m's group
        for (int64_t oh = 0; oh < OH; ++oh) {
          for (int64_t ow = 0; ow < OW; ++ow) {
            T acc = b ? b[m] : T(0);
            for (int64_t c = 0; c < Cg; ++c) {
              for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
                const int64_t ih =
                    oh * g.stride_h - g.pad.top + kh * g.dilation_h;
                if (ih < 0 || ih >= H) continue;
                for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
                  const int64_t iw =
                      ow * g.stride_w - g.pad.left + kw * g.dilation_w;
                  if (iw < 0 || iw >= W) continue;
                  acc += in[at_in(n, c0 + c, ih, iw)] *
                         w[((m * Cg + c) * g.kernel_h + kh) * g.kernel_w + kw];
                }
              }
            }
            out[at_out(n, m, oh, ow)] = acc;
          }
        }
      }
    }
    ctx.device_context<EmuDeviceContext>().Launch();
  }
};

}  // namespace emu

REGISTER_OP_DEVICE_KERNEL(conv2d,
                          PLAIN,
                          emu::kDeviceType,
                          emu::Conv2DKernel<float>);
