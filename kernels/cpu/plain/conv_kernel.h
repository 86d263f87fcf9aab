// The CPU kernel of the 2-D convolution ops conv2d and depthwise_conv2d.
// Private to kernels/cpu/plain (conv2d.cc and depthwise_conv2d.cc register
// it); it includes Eigen's dense core for the GEMM.
//
// Two paths:
// * groups == C (one input channel per group, the depthwise case): a direct
//   loop per output row, whose innermost loop runs over output columns
//   with the bounds precomputed, so it vectorizes and never branches (for
//   float, depthwise_conv_util.h: compiled per ISA, picked at run time).
// * otherwise im2col + GEMM per (image, group, tile of output pixels): the
//   column buffer covers only one tile, so a 960x960 image needs no
//   gigabyte-sized scratch, and tiles are what the threads share out. A
//   1x1 / stride 1 / no padding convolution reads the input directly. For
//   float the GEMM is SgemmOneThread (sgemm_util.h: Eigen's compiled for
//   AVX2 and FMA, or oneDNN's sgemm on CPUs without them), for double
//   Eigen's.
// Neither makes code per input size: a new shape runs at full speed at
// once, which is what the predictor's first sight of a shape relies on.
// NHWC activations are transposed to NCHW and back (spec §2.2 edge cases).
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "framework/kernel_registry.h"
#include "kernels/cpu/plain/depthwise_conv_util.h"
#include "kernels/cpu/plain/sgemm_util.h"
#include "operators/conv_pool_shape.h"
#include "operators/fused_activation.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {
namespace conv_detail {

template <typename T>
using RowMajor =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstStridedMap =
    Eigen::Map<const RowMajor<T>, 0, Eigen::OuterStride<Eigen::Dynamic>>;
template <typename T>
using StridedMap =
    Eigen::Map<RowMajor<T>, 0, Eigen::OuterStride<Eigen::Dynamic>>;

/// Output columns [lo, hi) whose input column ow * stride + offset lies in
/// [0, in_w); outside it the input is padding.
inline void ValidColumns(int64_t out_w,
                         int64_t in_w,
                         int64_t stride,
                         int64_t offset,
                         int64_t* lo,
                         int64_t* hi) {
  *lo = offset < 0 ? (-offset + stride - 1) / stride : 0;
  *hi = in_w - 1 - offset < 0 ? 0 : (in_w - 1 - offset) / stride + 1;
  *hi = std::min(*hi, out_w);
  *lo = std::min(*lo, *hi);
}

/// Copies n images between channel-last [pixels, c] and channel-first
/// [c, pixels] layouts (NHWC <-> NCHW); `pixels` = H * W.
template <typename T>
void SwapChannelLayout(const platform::CPUDeviceContext& dev,
                       const T* src,
                       T* dst,
                       int64_t n,
                       int64_t pixels,
                       int64_t c,
                       bool to_channel_first) {
  dev.ParallelFor(n * pixels, static_cast<double>(c),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t i = begin; i < end; ++i) {
                      const int64_t image = (i / pixels) * pixels * c;
                      const int64_t p = i % pixels;
                      for (int64_t ch = 0; ch < c; ++ch) {
                        if (to_channel_first) {
                          dst[image + ch * pixels + p] = src[i * c + ch];
                        } else {
                          dst[i * c + ch] = src[image + ch * pixels + p];
                        }
                      }
                    }
                  });
}

/// Depthwise path: NCHW in/out, filter [M, 1, KH, KW], M = C * multiplier.
template <typename T>
void DepthwiseConv(const platform::CPUDeviceContext& dev,
                   const operators::Conv2DGeometry& g,
                   const T* in,
                   const T* filter,
                   const T* bias,
                   T* out) {
  const int64_t multiplier = g.out_channels / g.in_channels;
  const int64_t in_plane = g.in_h * g.in_w;
  const int64_t rows = g.batch * g.out_channels * g.out_h;
  const double cost = 2.0 * g.out_w * g.kernel_h * g.kernel_w;
  dev.ParallelFor(rows, cost, [&](int64_t begin, int64_t end) {
    if constexpr (std::is_same_v<T, float>) {
      plain::DepthwiseConvRows(g, in, filter, bias, out, begin, end);
      return;
    }
    for (int64_t r = begin; r < end; ++r) {
      const int64_t oh = r % g.out_h;
      const int64_t plane = r / g.out_h;  // n * M + m
      const int64_t m = plane % g.out_channels;
      const int64_t n = plane / g.out_channels;
      const T* src = in + (n * g.in_channels + m / multiplier) * in_plane;
      const T* w = filter + m * g.kernel_h * g.kernel_w;
      T* dst = out + r * g.out_w;
      std::fill(dst, dst + g.out_w, bias ? bias[m] : T(0));
      for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
        const int64_t ih = oh * g.stride_h - g.pad.top + kh * g.dilation_h;
        if (ih < 0 || ih >= g.in_h) continue;
        const T* src_row = src + ih * g.in_w;
        for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
          const T wv = w[kh * g.kernel_w + kw];
          const int64_t offset = kw * g.dilation_w - g.pad.left;
          int64_t lo, hi;
          ValidColumns(g.out_w, g.in_w, g.stride_w, offset, &lo, &hi);
          if (g.stride_w == 1) {
            for (int64_t ow = lo; ow < hi; ++ow) {
              dst[ow] += wv * src_row[ow + offset];
            }
          } else {
            for (int64_t ow = lo; ow < hi; ++ow) {
              dst[ow] += wv * src_row[ow * g.stride_w + offset];
            }
          }
        }
      }
    }
  });
}

/// Fills col (K x count, row-major, K = Cg * KH * KW) with the input
/// patches of output pixels [p0, p0 + count) of one image and group;
/// `in` points at the group's first input channel.
template <typename T>
void Im2ColTile(const operators::Conv2DGeometry& g,
                int64_t group_channels,
                const T* in,
                int64_t p0,
                int64_t count,
                T* col) {
  const int64_t in_plane = g.in_h * g.in_w;
  for (int64_t c = 0; c < group_channels; ++c) {
    const T* src = in + c * in_plane;
    for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
      for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
        T* dst = col + ((c * g.kernel_h + kh) * g.kernel_w + kw) * count;
        const int64_t offset = kw * g.dilation_w - g.pad.left;
        int64_t lo, hi;
        ValidColumns(g.out_w, g.in_w, g.stride_w, offset, &lo, &hi);
        // Walk the tile one output row segment at a time.
        int64_t p = p0;
        const int64_t p_end = p0 + count;
        while (p < p_end) {
          const int64_t oh = p / g.out_w;
          const int64_t ow_begin = p % g.out_w;
          const int64_t ow_end = std::min(g.out_w, ow_begin + (p_end - p));
          T* d = dst + (p - p0) - ow_begin;  // d[ow] is pixel (oh, ow)
          const int64_t ih = oh * g.stride_h - g.pad.top + kh * g.dilation_h;
          if (ih < 0 || ih >= g.in_h) {
            std::fill(d + ow_begin, d + ow_end, T(0));
          } else {
            const T* s = src + ih * g.in_w;
            const int64_t a = std::clamp(lo, ow_begin, ow_end);
            const int64_t b = std::clamp(hi, a, ow_end);
            std::fill(d + ow_begin, d + a, T(0));
            if (g.stride_w == 1) {
              std::memcpy(d + a, s + a + offset, (b - a) * sizeof(T));
            } else if (g.stride_w == 2) {
              // A constant stride, which the compiler vectorizes (a
              // stride-2 stem conv's copy was a scalar loop).
              for (int64_t ow = a; ow < b; ++ow) d[ow] = s[2 * ow + offset];
            } else {
              for (int64_t ow = a; ow < b; ++ow) {
                d[ow] = s[ow * g.stride_w + offset];
              }
            }
            std::fill(d + b, d + ow_end, T(0));
          }
          p += ow_end - ow_begin;
        }
      }
    }
  }
}

/// im2col + GEMM path: NCHW in/out, filter [M, Cg, KH, KW].
template <typename T>
void GemmConv(const platform::CPUDeviceContext& dev,
              const operators::Conv2DGeometry& g,
              const T* in,
              const T* filter,
              const T* bias,
              T* out) {
  const int64_t cg = g.in_channels / g.groups;
  const int64_t mg = g.out_channels / g.groups;
  const int64_t k = cg * g.kernel_h * g.kernel_w;
  const int64_t pixels = g.out_h * g.out_w;
  const int64_t in_plane = g.in_h * g.in_w;
  const bool direct = g.kernel_h == 1 && g.kernel_w == 1 && g.stride_h == 1 &&
                      g.stride_w == 1 && g.pad.top == 0 && g.pad.left == 0 &&
                      g.pad.bottom == 0 && g.pad.right == 0;

  // A column tile of about 512K elements (2 MB): each GEMM call packs the
  // whole filter again, which at 128K elements (a tile in L2) cost an OCR
  // detector 4-5% more than the larger tiles' traffic; then split further
  // until every thread has a few tasks, over pixels first and output
  // channels last (splitting channels repeats the im2col).
  const int64_t units = g.batch * g.groups;
  const int64_t want = dev.num_threads() > 1 ? 4 * dev.num_threads() : 1;
  int64_t tile =
      std::clamp<int64_t>(524288 / std::max<int64_t>(k, 1), 64, 4096);
  int64_t tiles = (pixels + tile - 1) / tile;
  if (units * tiles < want) {
    tiles = std::min((pixels + 15) / 16, (want + units - 1) / units);
    tiles = std::max<int64_t>(tiles, 1);
  }
  tile = (pixels + tiles - 1) / tiles;
  tiles = (pixels + tile - 1) / tile;
  int64_t m_blocks = 1;
  if (units * tiles < want) {
    m_blocks = std::clamp<int64_t>((want + units * tiles - 1) / (units * tiles),
                                   1, std::max<int64_t>(mg / 16, 1));
  }
  const int64_t m_block = (mg + m_blocks - 1) / m_blocks;
  m_blocks = (mg + m_block - 1) / m_block;

  const int64_t tasks = units * tiles * m_blocks;
  const double cost = 2.0 * m_block * k * tile + k * tile;
  dev.ParallelFor(tasks, cost, [&](int64_t begin, int64_t end) {
    std::vector<T> col;
    if (!direct) col.resize(k * tile);
    for (int64_t t = begin; t < end; ++t) {
      const int64_t mb = t % m_blocks;
      const int64_t tile_idx = (t / m_blocks) % tiles;
      const int64_t unit = t / (m_blocks * tiles);
      const int64_t grp = unit % g.groups;
      const int64_t n = unit / g.groups;
      const int64_t p0 = tile_idx * tile;
      const int64_t count = std::min(tile, pixels - p0);
      const int64_t m0 = grp * mg + mb * m_block;
      const int64_t rows = std::min(m_block, mg - mb * m_block);
      const T* group_in = in + (n * g.in_channels + grp * cg) * in_plane;
      T* dst = out + (n * g.out_channels + m0) * pixels + p0;
      StridedMap<T> out_mat(dst, rows, count,
                            Eigen::OuterStride<Eigen::Dynamic>(pixels));
      if (k == 0) {
        out_mat.setZero();
      } else {
        if constexpr (std::is_same_v<T, float>) {
          // The bias goes in first and the product is added to it.
          const float* cols = group_in + p0;
          int64_t ld_cols = pixels;
          if (!direct) {
            Im2ColTile(g, cg, group_in, p0, count, col.data());
            cols = col.data();
            ld_cols = count;
          }
          if (bias) {
            for (int64_t r = 0; r < rows; ++r) {
              std::fill(dst + r * pixels, dst + r * pixels + count,
                        bias[m0 + r]);
            }
          }
          plain::SgemmOneThread(rows, count, k, filter + m0 * k, k, cols,
                                ld_cols, bias ? 1.f : 0.f, dst, pixels);
          continue;
        }
        Eigen::Map<const RowMajor<T>> w(filter + m0 * k, rows, k);
        if (direct) {
          ConstStridedMap<T> cols(group_in + p0, k, count,
                                  Eigen::OuterStride<Eigen::Dynamic>(pixels));
          out_mat.noalias() = w * cols;
        } else {
          Im2ColTile(g, cg, group_in, p0, count, col.data());
          Eigen::Map<const RowMajor<T>> cols(col.data(), k, count);
          out_mat.noalias() = w * cols;
        }
      }
      if (bias) {
        for (int64_t r = 0; r < rows; ++r) {
          out_mat.row(r).array() += bias[m0 + r];
        }
      }
    }
  });
}

}  // namespace conv_detail

/// What a conv op keeps between runs (ExecutionContext::kernel_state):
/// its geometry for the input and filter dims it last saw, and its fused
/// activation. Resolving them reads the op's attributes by name, which was
/// 3-4% of the OCR classifier's runs on these kernels.
struct PlainConvState {
  framework::DDim input_dims;
  framework::DDim filter_dims;
  operators::Conv2DGeometry geometry;
  bool has_activation = false;
  operators::FusedActivation activation;
};

/// The op's kept state, resolved again when its input or filter dims
/// changed; a state of the call's own when the op has no slot.
inline PlainConvState* ConvStateOf(const framework::ExecutionContext& ctx,
                                   const framework::DDim& input_dims,
                                   const framework::DDim& filter_dims,
                                   PlainConvState* own) {
  std::shared_ptr<void>* slot = ctx.kernel_state();
  PlainConvState* state = own;
  if (slot != nullptr) {
    if (*slot == nullptr) *slot = std::make_shared<PlainConvState>();
    state = static_cast<PlainConvState*>(slot->get());
  }
  if (state != own && state->input_dims == input_dims &&
      state->filter_dims == filter_dims) {
    return state;
  }
  state->geometry = operators::ResolveConv2D(ctx.op(), input_dims, filter_dims);
  state->input_dims = input_dims;
  state->filter_dims = filter_dims;
  return state;
}

/// conv2d / depthwise_conv2d on CPU: Output = Input (*) Filter (+ Bias).
template <typename T>
class ConvKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    PlainConvState own;
    Run(ctx, &own);
  }

 protected:
  /// Runs the convolution; returns the op's state (`own` without a slot).
  PlainConvState* Run(const framework::ExecutionContext& ctx,
                      PlainConvState* own) const {
    const auto* input = ctx.Input<framework::Tensor>("Input");
    const auto* filter = ctx.Input<framework::Tensor>("Filter");
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    auto* output = ctx.Output<framework::Tensor>("Output");
    PlainConvState* state =
        ConvStateOf(ctx, input->dims(), filter->dims(), own);
    const operators::Conv2DGeometry& g = state->geometry;
    T* out = output->mutable_data<T>(ctx.GetPlace());
    if (output->numel() == 0) return state;
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    const T* in = input->data<T>();
    const T* w = filter->data<T>();
    const T* b = bias ? bias->data<T>() : nullptr;

    std::vector<T> in_nchw, out_nchw;
    T* out_target = out;
    if (g.channel_last) {
      in_nchw.resize(input->numel());
      // No channel: nothing to move, however many pixels a hostile input
      // declares (the swap would walk them all).
      if (input->numel() > 0) {
        conv_detail::SwapChannelLayout(dev, in, in_nchw.data(), g.batch,
                                       g.in_h * g.in_w, g.in_channels,
                                       /*to_channel_first=*/true);
      }
      in = in_nchw.data();
      out_nchw.resize(output->numel());
      out_target = out_nchw.data();
    }
    if (g.groups == g.in_channels && g.in_channels > 0) {
      conv_detail::DepthwiseConv(dev, g, in, w, b, out_target);
    } else {
      conv_detail::GemmConv(dev, g, in, w, b, out_target);
    }
    if (g.channel_last) {
      conv_detail::SwapChannelLayout(dev, out_target, out, g.batch,
                                     g.out_h * g.out_w, g.out_channels,
                                     /*to_channel_first=*/false);
    }
    return state;
  }
};

}  // namespace kernels
}  // namespace paddle_lite
