// pool2d with oneDNN (spec §3). oneDNN's window rules match Paddle's for
// max and exclusive average pooling once the end padding is set to where
// the last window ends (ceil_mode adds windows past it). Cases with other
// rules go to the PLAIN kernel: adaptive windows that are not one uniform
// grid, windows that lie wholly in padding, and non-exclusive averages
// whose divisor Paddle clips (it divides by the window clipped to
// in + pad_begin, oneDNN always by kernel_h * kernel_w).
//
// Averages over whole images (global or adaptive 1x1 average pooling, the
// squeeze of every squeeze-and-excitation block) run without oneDNN: a
// primitive is made per input size, tens of them for each new size an SE
// network sees, and the sum is a plain vectorized loop (AverageImages).
// So do other window grids over channel-last input (PoolChannelLast).
#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>

#include "framework/kernel_registry.h"
#include "kernels/cpu/image_channels_util.h"
#include "kernels/cpu/mkldnn/mkldnn_helper.h"
#include "kernels/cpu/mkldnn/own_loop_vectors.h"
#include "operators/conv_pool_shape.h"
#include "platform/cpu_isa.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

/// The window grid of one spatial dim as oneDNN takes it.
struct PoolDim {
  bool ok = false;
  int64_t kernel = 0;
  int64_t stride = 0;
  int64_t pad_begin = 0;
  int64_t pad_end = 0;
};

PoolDim ResolvePoolDim(int64_t in,
                       int64_t out,
                       int64_t kernel,
                       int64_t stride,
                       int64_t pad_begin,
                       bool adaptive,
                       bool average_with_padding) {
  PoolDim d;
  if (adaptive) {
    // Adaptive windows [o * in / out, ceil((o + 1) * in / out)) form a
    // grid of kernel = stride = in / out exactly when out divides in.
    if (in % out != 0) return d;
    d.kernel = d.stride = in / out;
    d.ok = true;
    return d;
  }
  d.kernel = kernel;
  d.stride = stride;
  d.pad_begin = pad_begin;
  d.pad_end =
      std::max<int64_t>(0, (out - 1) * stride + kernel - in - pad_begin);
  // Every window must hold an input element: oneDNN refuses windows wholly
  // in padding, where Paddle yields -FLT_MAX or 0 / 0.
  if (pad_begin < 0 || pad_begin >= kernel || d.pad_end >= kernel) return d;
  // Paddle's non-exclusive divisor is the window clipped to in + pad_begin.
  if (average_with_padding && (out - 1) * stride + kernel > in + 2 * pad_begin)
    return d;
  d.ok = true;
  return d;
}

/// The ImageChannels of input `md` (dims [N, C, H, W]) when `g` averages
/// whole images and `md` is a dense NCHW or NHWC layout; false otherwise.
bool AveragesWholeImages(const operators::Pool2DGeometry& g,
                         bool is_max,
                         const PoolDim& h,
                         const PoolDim& w,
                         const dnnl::memory::desc& md,
                         ImageChannels* shape) {
  if (is_max || g.out_h != 1 || g.out_w != 1 || h.kernel != g.in_h ||
      w.kernel != g.in_w || h.pad_begin != 0 || h.pad_end != 0 ||
      w.pad_begin != 0 || w.pad_end != 0) {
    return false;
  }
  const auto& dims = md.data.dims;
  if (md.data.ndims != 4 || dims[0] != g.batch || dims[1] != g.channels ||
      dims[2] != g.in_h || dims[3] != g.in_w) {
    return false;
  }
  if (!IsDenseActivation(md, &shape->channel_last)) return false;
  shape->images = g.batch;
  shape->channels = g.channels;
  shape->pixels = g.in_h * g.in_w;
  return true;
}

/// A window grid over channel-last images, pooled by our own loop: the
/// loop's code does not depend on the input size, where oneDNN makes a
/// primitive for every size (0.06-0.1 ms, most of what the OCR
/// classifier's pooling cost at a new width).
struct ChannelLastPool {
  bool is_max = false;
  // Averages divide by the window's pixels inside the input (exclusive)
  // or by kernel_h * kernel_w (ResolvePoolDim left only windows that
  // Paddle does not clip).
  bool exclusive = true;
  operators::Pool2DGeometry geometry;  // the sizes
  PoolDim h;
  PoolDim w;
};

/// dst[k] = max(dst[k], src[k]) or dst[k] += src[k], k < c: a window's
/// pixel into its output pixel, in 16-lane vectors where the CPU has
/// them, 8-lane ones with AVX2 (the baseline build's loops take 4 lanes: an
/// SPP block's 13x13 windows took twice oneDNN's time that way).
using MergeFn = void (*)(float* dst, const float* src, int64_t c);

template <bool kMax>
void Merge(float* dst, const float* src, int64_t c) {
  for (int64_t k = 0; k < c; ++k) {
    dst[k] = kMax ? std::max(dst[k], src[k]) : dst[k] + src[k];
  }
}

template <bool kMax>
PDLITE_AVX512 void MergeAvx512(float* dst, const float* src, int64_t c) {
  for (int64_t k = 0; k < c; k += avx512::kLanes) {
    const avx512::Mask m = avx512::FirstLanes(c - k);
    const avx512::V a = avx512::LoadFirst(m, dst + k);
    const avx512::V b = avx512::LoadFirst(m, src + k);
    avx512::StoreFirst(dst + k, m,
                       kMax ? avx512::Max(a, b) : avx512::Add(a, b));
  }
}

template <bool kMax>
PDLITE_AVX2 void MergeAvx2(float* dst, const float* src, int64_t c) {
  int64_t k = 0;
  for (; k + 8 <= c; k += 8) {
    const __m256 a = _mm256_loadu_ps(dst + k);
    const __m256 b = _mm256_loadu_ps(src + k);
    _mm256_storeu_ps(dst + k, kMax ? _mm256_max_ps(a, b) : _mm256_add_ps(a, b));
  }
  for (; k < c; ++k) {
    dst[k] = kMax ? std::max(dst[k], src[k]) : dst[k] + src[k];
  }
}

MergeFn MergeFor(bool is_max) {
  switch (platform::WidestCpuIsa()) {
    case platform::CpuIsa::kAvx512:
      return is_max ? MergeAvx512<true> : MergeAvx512<false>;
    case platform::CpuIsa::kAvx2:
      return is_max ? MergeAvx2<true> : MergeAvx2<false>;
    case platform::CpuIsa::kBaseline:
      break;
  }
  return is_max ? Merge<true> : Merge<false>;
}

/// out[n][y][x][c] = the max or mean of in[n][window of (y, x)][c].
void PoolChannelLast(const platform::CPUDeviceContext& dev,
                     const ChannelLastPool& p,
                     const float* in,
                     float* out) {
  const operators::Pool2DGeometry& g = p.geometry;
  const int64_t c = g.channels;
  const int64_t rows = g.batch * g.out_h;
  const MergeFn merge = MergeFor(p.is_max);
  dev.ParallelFor(
      rows, 1.0 * g.out_w * c * p.h.kernel * p.w.kernel,
      [&](int64_t begin, int64_t end) {
        for (int64_t row = begin; row < end; ++row) {
          const int64_t n = row / g.out_h;
          const int64_t y = row % g.out_h;
          const int64_t y0 = y * p.h.stride - p.h.pad_begin;
          const int64_t top = std::max<int64_t>(0, y0);
          const int64_t bottom = std::min(g.in_h, y0 + p.h.kernel);
          const float* image = in + n * g.in_h * g.in_w * c;
          float* dst_row = out + row * g.out_w * c;
          for (int64_t x = 0; x < g.out_w; ++x) {
            const int64_t x0 = x * p.w.stride - p.w.pad_begin;
            const int64_t left = std::max<int64_t>(0, x0);
            const int64_t right = std::min(g.in_w, x0 + p.w.kernel);
            float* dst = dst_row + x * c;
            const float* first = image + (top * g.in_w + left) * c;
            std::copy(first, first + c, dst);
            for (int64_t i = top; i < bottom; ++i) {
              for (int64_t j = (i == top ? left + 1 : left); j < right; ++j) {
                merge(dst, image + (i * g.in_w + j) * c, c);
              }
            }
            if (!p.is_max) {
              const float scale =
                  1.f / static_cast<float>(p.exclusive
                                               ? (bottom - top) * (right - left)
                                               : p.h.kernel * p.w.kernel);
              for (int64_t k = 0; k < c; ++k) dst[k] *= scale;
            }
          }
        }
      });
}

/// What pool2d keeps between runs: the kept call of a primitive, or, with
/// no call, that it averaged whole images (`average`) or pooled a
/// channel-last grid (`own`), and declared Out as `out_layout`.
struct PoolState : KeptUnaryState {
  ImageChannels average;
  bool own = false;
  ChannelLastPool grid;
};

struct PoolPrimitive {
  dnnl::pooling_forward::primitive_desc pd;
  dnnl::pooling_forward prim;
  std::shared_ptr<const MkldnnLayout> dst_layout;  // null: dst is plain
};

template <typename T>
class MkldnnPool2dKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    if (RunKept(ctx, *x, out)) return;
    const operators::Pool2DGeometry g =
        operators::ResolvePool2D(ctx.op(), x->dims());
    const bool is_max = ctx.Attr<std::string>("pooling_type") == "max";
    const bool exclusive = ctx.Attr<bool>("exclusive") || g.adaptive;
    const bool average_with_padding = !is_max && !exclusive;
    const PoolDim h =
        ResolvePoolDim(g.in_h, g.out_h, g.kernel_h, g.stride_h, g.pad.top,
                       g.adaptive, average_with_padding);
    const PoolDim w =
        ResolvePoolDim(g.in_w, g.out_w, g.kernel_w, g.stride_w, g.pad.left,
                       g.adaptive, average_with_padding);
    if (x->numel() == 0 || !h.ok || !w.ok) {
      RunPlainKernel<T>(ctx);
      return;
    }
    MkldnnContext& mk = PrepareMkldnn(ctx);
    // Pooling reads its input in whatever layout it comes in and writes
    // the layout oneDNN pairs with it (the same blocking).
    const dnnl::memory::desc src_plain =
        ActivationMd({g.batch, g.channels, g.in_h, g.in_w}, g.channel_last);
    const InputSignature signature(ctx, {x});
    const dnnl::memory::desc src_md = StoredMd(ctx, "X", src_plain);
    const dnnl::memory::desc dst_plain =
        ActivationMd({g.batch, g.channels, g.out_h, g.out_w}, g.channel_last);
    ImageChannels average;
    if (AveragesWholeImages(g, is_max, h, w, src_md, &average)) {
      // Out as oneDNN's pooling would declare it: in X's layout (the same
      // bytes as plain for one pixel, but readers key their primitives on
      // it); kept, as readers compare layouts by address.
      auto state = std::make_shared<PoolState>();
      state->signature = signature;
      state->out_dims = out->dims();
      state->average = average;
      if (src_md != src_plain) {
        state->out_layout = MakeLayout(
            ActivationMd({g.batch, g.channels, 1, 1}, average.channel_last),
            dst_plain, mk.engine());
      }
      RunLoop(ctx, *state, *x, out);
      KeepState(ctx, std::move(state));
      return;
    }
    bool channel_last_in = false;
    if (std::is_same<T, float>::value &&
        IsDenseActivation(src_md, &channel_last_in) && channel_last_in) {
      auto state = std::make_shared<PoolState>();
      state->signature = signature;
      state->out_dims = out->dims();
      state->own = true;
      ChannelLastPool& grid = state->grid;
      grid.is_max = is_max;
      grid.exclusive = exclusive;
      grid.geometry = g;
      grid.h = h;
      grid.w = w;
      if (!g.channel_last) {
        state->out_layout =
            mk.ChannelLastLayout({g.batch, g.channels, g.out_h, g.out_w});
      }
      RunLoop(ctx, *state, *x, out);
      KeepState(ctx, std::move(state));
      return;
    }
    KeyBuilder key("pool2d", ctx);
    key.Add(src_md)
        .Add(g.channel_last)
        .Add(is_max)
        .Add(exclusive)
        .Add(std::vector<int64_t>{h.kernel, h.stride, h.pad_begin, h.pad_end,
                                  w.kernel, w.stride, w.pad_begin, w.pad_end});
    auto pool = mk.Primitive<PoolPrimitive>(key.str(), [&] {
      auto p = std::make_shared<PoolPrimitive>();
      const dnnl::algorithm algorithm =
          is_max ? dnnl::algorithm::pooling_max
                 : (exclusive ? dnnl::algorithm::pooling_avg_exclude_padding
                              : dnnl::algorithm::pooling_avg_include_padding);
      const dnnl::memory::desc dst_any({g.batch, g.channels, g.out_h, g.out_w},
                                       dnnl::memory::data_type::f32,
                                       dnnl::memory::format_tag::any);
      dnnl::pooling_forward::desc desc(
          dnnl::prop_kind::forward_inference, algorithm, src_md,
          src_md == src_plain ? dst_plain : dst_any, {h.stride, w.stride},
          {h.kernel, w.kernel}, {h.pad_begin, w.pad_begin},
          {h.pad_end, w.pad_end});
      p->pd = dnnl::pooling_forward::primitive_desc(desc, mk.engine());
      if (IsSlowImplementation(p->pd)) return std::shared_ptr<PoolPrimitive>();
      p->prim = dnnl::pooling_forward(p->pd);
      p->dst_layout = MakeLayout(p->pd.dst_desc(), dst_plain, mk.engine());
      return p;
    });
    if (!pool) {
      RunPlainKernel<T>(ctx);
      return;
    }
    const dnnl::memory src =
        UserMemory(pool->pd.src_desc(), mk.engine(), x->data<T>());
    const dnnl::memory dst =
        OutputMemory<T>(ctx, &mk, out, pool->dst_layout, pool->pd.dst_desc());
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, src},
                                                  {DNNL_ARG_DST, dst}};
    RunPrimitive(pool->prim, mk.stream(), args);
    mk.stream().wait();
    // Kept only if X was read as it came (the signature still holds).
    if (signature.Matches(ctx, {x})) {
      KeepUnary<PoolState>(ctx, signature, pool->dst_layout, pool->pd,
                           pool->prim, std::move(args));
    }
  }

 private:
  // Runs what the op kept if X and Out are as it was kept for (its call,
  // or the average); false when nothing was or they are not.
  static bool RunKept(const framework::ExecutionContext& ctx,
                      const framework::Tensor& x,
                      framework::Tensor* out) {
    auto* state = MatchingKeptUnary<PoolState>(ctx);
    if (state == nullptr) return false;
    if (state->call) {
      ExecuteKeptUnary<T>(ctx, state);
    } else {
      RunLoop(ctx, *state, x, out);
    }
    return true;
  }

  // Runs the loop the state kept (a whole-image average or a channel-last
  // grid).
  static void RunLoop(const framework::ExecutionContext& ctx,
                      const PoolState& state,
                      const framework::Tensor& x,
                      framework::Tensor* out) {
    // Read before Out (maybe X) is touched.
    const auto* src = static_cast<const float*>(x.raw_data());
    out->set_opaque_layout(state.out_layout);
    float* dst = out->mutable_data<float>(ctx.GetPlace());
    if (framework::MakingOnly()) return;
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    if (state.own) {
      PoolChannelLast(dev, state.grid, src, dst);
    } else {
      AverageImages(dev, state.average, src, dst);
    }
  }
};

}  // namespace
}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(pool2d,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnPool2dKernel<float>);
