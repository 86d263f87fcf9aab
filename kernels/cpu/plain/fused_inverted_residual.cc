// fused_inverted_residual on CPU, NCHW: the expanding 1x1 convolution into
// a buffer of the expanded map and its activation, the depthwise one into
// a buffer of the filtered map and its activation, then the projecting
// 1x1 one into Output, plus the residual, and its activation. The
// reference the MKLDNN kernel's row-by-row loops are checked against.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "framework/kernel_registry.h"
#include "kernels/cpu/plain/fused_activation.h"
#include "operators/inverted_residual_shape.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {
namespace {

// out[n][m][p] = bias[m] + sum_c in[n][c][p] * filter[m][c]
// (+ residual[n][m][p]).
template <typename T>
void Pointwise(const platform::CPUDeviceContext& dev,
               const operators::Conv2DGeometry& g,
               const T* in,
               const T* filter,
               const T* bias,
               const T* residual,
               T* out) {
  const int64_t plane = g.in_h * g.in_w;
  dev.ParallelFor(g.batch * g.out_channels,
                  static_cast<double>(plane * g.in_channels),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t task = begin; task < end; ++task) {
                      const int64_t n = task / g.out_channels;
                      const int64_t m = task % g.out_channels;
                      T* o = out + task * plane;
                      const T start = bias != nullptr ? bias[m] : T(0);
                      for (int64_t p = 0; p < plane; ++p) o[p] = start;
                      for (int64_t c = 0; c < g.in_channels; ++c) {
                        const T* x = in + (n * g.in_channels + c) * plane;
                        const T w = filter[m * g.in_channels + c];
                        for (int64_t p = 0; p < plane; ++p) o[p] += x[p] * w;
                      }
                      if (residual != nullptr) {
                        const T* r = residual + task * plane;
                        for (int64_t p = 0; p < plane; ++p) o[p] += r[p];
                      }
                    }
                  });
}

// One filter per channel: out[n][c][y][x] = bias[c] + the sum over the
// window of in[n][c][y * SH - top + i * DH][x * SW - left + j * DW] *
// filter[c][i][j], taps outside the input reading zeros.
template <typename T>
void Depthwise(const platform::CPUDeviceContext& dev,
               const operators::Conv2DGeometry& g,
               const T* in,
               const T* filter,
               const T* bias,
               T* out) {
  const int64_t in_plane = g.in_h * g.in_w;
  const int64_t out_plane = g.out_h * g.out_w;
  const int64_t taps = g.kernel_h * g.kernel_w;
  dev.ParallelFor(
      g.batch * g.in_channels, static_cast<double>(out_plane * taps),
      [&](int64_t begin, int64_t end) {
        for (int64_t task = begin; task < end; ++task) {
          const int64_t c = task % g.in_channels;
          const T* x = in + task * in_plane;
          const T* f = filter + c * taps;
          T* o = out + task * out_plane;
          for (int64_t y = 0; y < g.out_h; ++y) {
            for (int64_t xx = 0; xx < g.out_w; ++xx) {
              T sum = bias != nullptr ? bias[c] : T(0);
              for (int64_t i = 0; i < g.kernel_h; ++i) {
                const int64_t iy =
                    y * g.stride_h - g.pad.top + i * g.dilation_h;
                if (iy < 0 || iy >= g.in_h) continue;
                for (int64_t j = 0; j < g.kernel_w; ++j) {
                  const int64_t ix =
                      xx * g.stride_w - g.pad.left + j * g.dilation_w;
                  if (ix < 0 || ix >= g.in_w) continue;
                  sum += x[iy * g.in_w + ix] * f[i * g.kernel_w + j];
                }
              }
              o[y * g.out_w + xx] = sum;
            }
          }
        }
      });
}

template <typename T>
const T* DataOrNull(const framework::Tensor* t) {
  return t != nullptr ? t->data<T>() : nullptr;
}

template <typename T>
class FusedInvertedResidualKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const operators::InvertedResidualGeometry g =
        operators::ResolveInvertedResidual(ctx);
    auto* output = ctx.Output<framework::Tensor>("Output");
    T* out = output->mutable_data<T>(ctx.GetPlace());
    if (output->numel() == 0) return;
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    std::vector<T> expanded(
        static_cast<size_t>(framework::Product(g.expand.OutputDims())));
    Pointwise(dev, g.expand, ctx.Input<framework::Tensor>("Input")->data<T>(),
              ctx.Input<framework::Tensor>("Filter")->data<T>(),
              DataOrNull<T>(ctx.Input<framework::Tensor>("Bias")),
              static_cast<const T*>(nullptr), expanded.data());
    ApplyFusedActivation(dev, FusedActivationOf(ctx), expanded.data(),
                         static_cast<int64_t>(expanded.size()));
    std::vector<T> filtered(
        static_cast<size_t>(framework::Product(g.depthwise.OutputDims())));
    Depthwise(dev, g.depthwise, expanded.data(),
              ctx.Input<framework::Tensor>("DepthwiseFilter")->data<T>(),
              DataOrNull<T>(ctx.Input<framework::Tensor>("DepthwiseBias")),
              filtered.data());
    ApplyFusedActivation(dev, FusedActivationOf(ctx, "2"), filtered.data(),
                         static_cast<int64_t>(filtered.size()));
    Pointwise(dev, g.project, filtered.data(),
              ctx.Input<framework::Tensor>("ProjectFilter")->data<T>(),
              DataOrNull<T>(ctx.Input<framework::Tensor>("ProjectBias")),
              DataOrNull<T>(ctx.Input<framework::Tensor>("ResidualData")), out);
    ApplyFusedActivation(dev, FusedActivationOf(ctx, "3"), out,
                         output->numel());
  }
};

}  // namespace
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(fused_inverted_residual,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::FusedInvertedResidualKernel<float>,
                   paddle_lite::kernels::FusedInvertedResidualKernel<double>);
