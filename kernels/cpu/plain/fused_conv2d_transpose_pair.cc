// fused_conv2d_transpose_pair on CPU, NCHW: the first deconvolution into a
// buffer of the map between, its activation, then the second into Output
// and its activation. Each is a pixel block: output pixel (y * KH + a,
// x * KW + b) of channel m is bias[m] plus the sum over input channels c of
// in[c][y][x] * filter[c][m][a][b].
#include <cstdint>
#include <vector>

#include "framework/kernel_registry.h"
#include "kernels/cpu/plain/fused_activation.h"
#include "operators/deconv_pair_shape.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {
namespace {

template <typename T>
void PixelBlockDeconv(const platform::CPUDeviceContext& dev,
                      const operators::Conv2DGeometry& g,
                      const T* in,
                      const T* filter,
                      const T* bias,
                      T* out) {
  const int64_t in_plane = g.in_h * g.in_w;
  const int64_t out_plane = g.out_h * g.out_w;
  const int64_t taps = g.kernel_h * g.kernel_w;
  // One task per output channel of an image.
  dev.ParallelFor(
      g.batch * g.out_channels, static_cast<double>(out_plane * g.in_channels),
      [&](int64_t begin, int64_t end) {
        for (int64_t task = begin; task < end; ++task) {
          const int64_t n = task / g.out_channels;
          const int64_t m = task % g.out_channels;
          T* o = out + task * out_plane;
          const T start = bias != nullptr ? bias[m] : T(0);
          for (int64_t i = 0; i < out_plane; ++i) o[i] = start;
          for (int64_t c = 0; c < g.in_channels; ++c) {
            const T* x = in + (n * g.in_channels + c) * in_plane;
            const T* f = filter + (c * g.out_channels + m) * taps;
            for (int64_t y = 0; y < g.in_h; ++y) {
              for (int64_t a = 0; a < g.kernel_h; ++a) {
                T* row = o + (y * g.kernel_h + a) * g.out_w;
                for (int64_t xx = 0; xx < g.in_w; ++xx) {
                  const T v = x[y * g.in_w + xx];
                  for (int64_t b = 0; b < g.kernel_w; ++b) {
                    row[xx * g.kernel_w + b] += v * f[a * g.kernel_w + b];
                  }
                }
              }
            }
          }
        }
      });
}

template <typename T>
class FusedConv2DTransposePairKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* input = ctx.Input<framework::Tensor>("Input");
    const auto* filter = ctx.Input<framework::Tensor>("Filter");
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    const auto* filter2 = ctx.Input<framework::Tensor>("Filter2");
    const auto* bias2 = ctx.Input<framework::Tensor>("Bias2");
    const operators::DeconvPairGeometry g = operators::ResolveDeconvPair(ctx);
    auto* output = ctx.Output<framework::Tensor>("Output");
    T* out = output->mutable_data<T>(ctx.GetPlace());
    if (output->numel() == 0) return;
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    std::vector<T> between(
        static_cast<size_t>(framework::Product(g.first.OutputDims())));
    PixelBlockDeconv(dev, g.first, input->data<T>(), filter->data<T>(),
                     bias ? bias->data<T>() : nullptr, between.data());
    ApplyFusedActivation(dev, FusedActivationOf(ctx), between.data(),
                         static_cast<int64_t>(between.size()));
    PixelBlockDeconv(dev, g.second, between.data(), filter2->data<T>(),
                     bias2 ? bias2->data<T>() : nullptr, out);
    ApplyFusedActivation(dev, FusedActivationOf(ctx, "2"), out,
                         output->numel());
  }
};

}  // namespace
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    fused_conv2d_transpose_pair,
    PLAIN,
    CPUPlace,
    paddle_lite::kernels::FusedConv2DTransposePairKernel<float>,
    paddle_lite::kernels::FusedConv2DTransposePairKernel<double>);
