// conv2d_transpose on CPU (spec §2.4): per image and group, a GEMM
// col = Filter_g^T @ Input_g gives every (output channel, tap, input pixel)
// contribution, and col2im adds them into Output. The GEMM reads the NCHW
// input in place (no im2col); it runs on bands of input rows so the column
// buffer stays small on large images.
//
// Threads: bands far enough apart never write the same output rows (a band
// of T input rows writes T * stride + (KH - 1) * dilation - stride + 1
// rows), so with T * stride >= (KH - 1) * dilation the even bands run in
// parallel, then the odd ones, with no locks and no per-thread outputs.
// Blocks of output channels are independent and split the work further.
#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <vector>

#include "framework/kernel_registry.h"
#include "kernels/cpu/plain/conv_kernel.h"
#include "kernels/cpu/plain/fused_activation.h"
#include "operators/conv_transpose_shape.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {
namespace {

using conv_detail::ConstStridedMap;
using conv_detail::RowMajor;

// Column buffer budget per task in elements (1 MiB of float): stays in L2
// while col2im walks it.
constexpr int64_t kColBudget = 256 * 1024;

/// Output (NCHW, zero-filled) += the transpose of Input (NCHW).
template <typename T>
void TransposeConv(const platform::CPUDeviceContext& dev,
                   const operators::Conv2DGeometry& g,
                   const T* in,
                   const T* filter,
                   T* out) {
  const int64_t cin_g = g.in_channels / g.groups;
  const int64_t cout_g = g.out_channels / g.groups;
  const int64_t taps = g.kernel_h * g.kernel_w;
  const int64_t in_plane = g.in_h * g.in_w;
  const int64_t out_plane = g.out_h * g.out_w;
  const int64_t units = g.batch * g.groups;
  const int64_t want = dev.num_threads() > 1 ? 4 * dev.num_threads() : 1;

  // Smallest band whose output rows do not reach the band after next.
  const int64_t min_rows = std::max<int64_t>(
      1, ((g.kernel_h - 1) * g.dilation_h + g.stride_h - 1) / g.stride_h);
  // Output channels are blocked when even the smallest band of all of them
  // would overflow the budget (wide images, many channels).
  const int64_t min_col = cout_g * taps * min_rows * g.in_w;
  int64_t co_blocks =
      std::clamp<int64_t>((min_col + kColBudget - 1) / kColBudget, 1, cout_g);
  int64_t rows =
      kColBudget / std::max<int64_t>(
                       (cout_g + co_blocks - 1) / co_blocks * taps * g.in_w, 1);
  rows = std::clamp<int64_t>(rows, min_rows, std::max(g.in_h, min_rows));
  int64_t bands = (g.in_h + rows - 1) / rows;

  // Enough tasks per phase: split output channels further first (no
  // repeated work, the GEMM keeps at least ~32 rows), then narrow the
  // bands.
  auto per_phase = [&] { return units * ((bands + 1) / 2) * co_blocks; };
  if (per_phase() < want) {
    const int64_t max_blocks =
        std::clamp<int64_t>(cout_g * taps / 32, co_blocks, cout_g);
    const int64_t needed =
        (want + units * ((bands + 1) / 2) - 1) / (units * ((bands + 1) / 2));
    co_blocks = std::max(co_blocks, std::min(max_blocks, needed));
  }
  if (per_phase() < want) {
    const int64_t wanted_bands =
        2 * ((want + units * co_blocks - 1) / (units * co_blocks));
    rows = std::max(min_rows, (g.in_h + wanted_bands - 1) / wanted_bands);
    bands = (g.in_h + rows - 1) / rows;
  }
  const int64_t co_block = (cout_g + co_blocks - 1) / co_blocks;
  co_blocks = (cout_g + co_block - 1) / co_block;

  const double cost = (2.0 * cin_g + 1.0) * co_block * taps * rows * g.in_w;
  for (int64_t phase = 0; phase < 2; ++phase) {
    const int64_t phase_bands = (bands - phase + 1) / 2;
    const int64_t tasks = units * phase_bands * co_blocks;
    if (tasks == 0) continue;
    dev.ParallelFor(tasks, cost, [&](int64_t begin, int64_t end) {
      std::vector<T> col(co_block * taps * rows * g.in_w);
      for (int64_t t = begin; t < end; ++t) {
        const int64_t cb = t % co_blocks;
        const int64_t band = 2 * ((t / co_blocks) % phase_bands) + phase;
        const int64_t unit = t / (co_blocks * phase_bands);
        const int64_t grp = unit % g.groups;
        const int64_t n = unit / g.groups;
        const int64_t ih0 = band * rows;
        const int64_t band_rows = std::min(rows, g.in_h - ih0);
        const int64_t count = band_rows * g.in_w;
        const int64_t co0 = cb * co_block;
        const int64_t channels = std::min(co_block, cout_g - co0);

        // col [channels * taps, count] = W_g[:, co0 : co0 + channels]^T @ X.
        ConstStridedMap<T> x(
            in + (n * g.in_channels + grp * cin_g) * in_plane + ih0 * g.in_w,
            cin_g, count, Eigen::OuterStride<Eigen::Dynamic>(in_plane));
        ConstStridedMap<T> w(filter + grp * cin_g * cout_g * taps + co0 * taps,
                             cin_g, channels * taps,
                             Eigen::OuterStride<Eigen::Dynamic>(cout_g * taps));
        Eigen::Map<RowMajor<T>> col_mat(col.data(), channels * taps, count);
        col_mat.noalias() = w.transpose() * x;

        // col2im: each (channel, tap) row lands on a strided grid of
        // Output; contributions outside Output are dropped.
        for (int64_t c = 0; c < channels; ++c) {
          T* plane =
              out + (n * g.out_channels + grp * cout_g + co0 + c) * out_plane;
          for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
            for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
              const T* src = col.data() +
                             ((c * g.kernel_h + kh) * g.kernel_w + kw) * count;
              const int64_t offset = kw * g.dilation_w - g.pad.left;
              int64_t lo, hi;
              conv_detail::ValidColumns(g.in_w, g.out_w, g.stride_w, offset,
                                        &lo, &hi);
              for (int64_t r = 0; r < band_rows; ++r) {
                const int64_t oh =
                    (ih0 + r) * g.stride_h - g.pad.top + kh * g.dilation_h;
                if (oh < 0 || oh >= g.out_h) continue;
                const T* s = src + r * g.in_w;
                T* d = plane + oh * g.out_w + offset;
                if (g.stride_w == 1) {
                  for (int64_t iw = lo; iw < hi; ++iw) d[iw] += s[iw];
                } else {
                  for (int64_t iw = lo; iw < hi; ++iw) {
                    d[iw * g.stride_w] += s[iw];
                  }
                }
              }
            }
          }
        }
      }
    });
  }
}

}  // namespace

/// Output = act(conv2d_transpose(Input, Filter) (+ Bias, fused graphs
/// only)), act from the fuse_activation attributes.
template <typename T>
class Conv2DTransposeKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* input = ctx.Input<framework::Tensor>("Input");
    const auto* filter = ctx.Input<framework::Tensor>("Filter");
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    auto* output = ctx.Output<framework::Tensor>("Output");
    const operators::Conv2DGeometry g = operators::ResolveConv2DTranspose(
        ctx.op(), input->dims(), filter->dims());
    T* out = output->mutable_data<T>(ctx.GetPlace());
    if (output->numel() == 0) return;
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();

    std::vector<T> in_nchw, out_nchw;
    const T* in = input->numel() > 0 ? input->data<T>() : nullptr;
    T* target = out;
    if (g.channel_last) {
      if (in) {
        in_nchw.resize(input->numel());
        conv_detail::SwapChannelLayout(dev, in, in_nchw.data(), g.batch,
                                       g.in_h * g.in_w, g.in_channels,
                                       /*to_channel_first=*/true);
        in = in_nchw.data();
      }
      out_nchw.resize(output->numel());
      target = out_nchw.data();
    }
    const int64_t out_plane = g.out_h * g.out_w;
    const T* b = bias ? bias->data<T>() : nullptr;
    // Every output pixel starts at the bias (or 0); positions no tap
    // reaches (output_padding, large paddings) keep it.
    dev.ParallelFor(g.batch * g.out_channels, static_cast<double>(out_plane),
                    [&](int64_t begin, int64_t end) {
                      for (int64_t p = begin; p < end; ++p) {
                        const T v = b ? b[p % g.out_channels] : T(0);
                        std::fill(target + p * out_plane,
                                  target + (p + 1) * out_plane, v);
                      }
                    });
    if (in) TransposeConv(dev, g, in, filter->data<T>(), target);
    if (g.channel_last) {
      conv_detail::SwapChannelLayout(dev, target, out, g.batch, out_plane,
                                     g.out_channels,
                                     /*to_channel_first=*/false);
    }
    ApplyFusedActivation(dev, FusedActivationOf(ctx), out, output->numel());
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(conv2d_transpose,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::Conv2DTransposeKernel<float>,
                   paddle_lite::kernels::Conv2DTransposeKernel<double>);
