// The oneDNN kernel of nearest_interp_v2 and bilinear_interp_v2 (spec
// §12): one resampling primitive, used only where oneDNN's coordinate
// rule is Paddle's; the PLAIN kernel runs the other cases. Private to
// kernels/cpu/mkldnn.
//
// oneDNN maps output index o to source (o + 0.5) * in / out - 0.5:
// * linear: Paddle's half-pixel rule (align_corners false, align_mode 0),
//   including the clamping at both borders, when Paddle's ratio is in / out
//   (no scale given, or one that agrees with the sizes);
// * nearest: oneDNN rounds that source, Paddle truncates ratio * o; they
//   pick the same pixels exactly when every axis is upsampled by a whole
//   factor (checked per axis from Paddle's own index computation).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>

#include "framework/kernel_registry.h"
#include "kernels/cpu/mkldnn/mkldnn_helper.h"
#include "operators/interp_op.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

enum class InterpMethod { kNearest, kBilinear };

/// True when oneDNN's resampling of one axis equals Paddle's.
inline bool SameAxisMapping(InterpMethod method,
                            int64_t in,
                            int64_t out,
                            float scale) {
  const float ratio =
      operators::InterpRatio(in, out, scale, /*align_corners=*/false);
  if (method == InterpMethod::kBilinear) {
    // A 1-pixel output samples Paddle's source 0 but oneDNN's center;
    // they agree only when that is the one input pixel.
    if (out == 1) return in == 1;
    return ratio == static_cast<float>(in) / static_cast<float>(out);
  }
  if (out % in != 0) return false;
  const int64_t factor = out / in;
  for (int64_t o = 0; o < out; ++o) {
    // Paddle's index is below `in` (<= out) wherever oneDNN's can match;
    // a position past it (an extreme scale) is no match, and converting
    // it would be undefined.
    const float pos = ratio * static_cast<float>(o);
    if (!(pos < static_cast<float>(out))) return false;
    if (static_cast<int64_t>(pos) != o / factor) return false;
  }
  return true;
}

struct ResamplingPrimitive {
  dnnl::resampling_forward::primitive_desc pd;
  dnnl::resampling_forward prim;
  std::shared_ptr<const MkldnnLayout> dst_layout;  // null: dst is plain
};

template <typename T, InterpMethod kMethod>
class MkldnnInterpKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    // The output size may come from tensors (OutSize, SizeTensor, Scale);
    // the output's dims, set before the kernel runs, stand for them. Not
    // the Scale tensor's values, though: they set the sampling ratio (also
    // where OutSize sets the size), which may change with the dims alike,
    // and whether oneDNN's resampling matches Paddle's at all. With one,
    // nothing is kept (the kept call had resampled at the first run's
    // ratio).
    const bool scale_tensor = ctx.HasInput("Scale");
    if (!scale_tensor && RunKeptUnary<T>(ctx)) return;
    const operators::InterpGeometry g = operators::ResolveInterp(ctx);
    operators::CheckInterpOutput(*out, g, ctx.op().Type());
    const bool align_corners = ctx.Attr<bool>("align_corners");
    bool exact = !align_corners && x->numel() > 0;
    if (kMethod == InterpMethod::kBilinear) {
      exact = exact && ctx.Attr<int>("align_mode") == 0;
    }
    const bool same_size =
        g.in[0] == g.out[0] && g.in[1] == g.out[1] && g.in[2] == g.out[2];
    const int first = 3 - g.spatial_rank;
    for (int i = first; i < 3 && exact && !same_size; ++i) {
      exact = SameAxisMapping(kMethod, g.in[i], g.out[i], g.scale[i]);
    }
    if (!exact) {
      RunPlainKernel<T>(ctx);
      return;
    }
    // Same size on every axis: Paddle copies, whatever the scale says.
    if (same_size) {
      out->set_opaque_layout(x->shared_opaque_layout());
      T* o = out->mutable_data<T>(ctx.GetPlace());
      if (o != x->data<T>() && !framework::MakingOnly())
        std::memcpy(o, x->data<T>(), x->memory_size());
      return;
    }
    Dims src = {g.batch, g.channels};
    Dims dst = {g.batch, g.channels};
    for (int i = first; i < 3; ++i) {
      src.push_back(g.in[i]);
      dst.push_back(g.out[i]);
    }

    MkldnnContext& mk = PrepareMkldnn(ctx);
    // Resampling reads its input in whatever layout it comes in and writes
    // the layout oneDNN pairs with it.
    const dnnl::memory::desc src_plain = ActivationMd(src, g.channel_last);
    const dnnl::memory::desc dst_plain = ActivationMd(dst, g.channel_last);
    const InputSignature signature(ctx, {x});
    const dnnl::memory::desc src_md = StoredMd(ctx, "X", src_plain);
    KeyBuilder key("resampling", ctx);
    key.Add(static_cast<int>(kMethod)).Add(src_md).Add(dst).Add(g.channel_last);
    auto resampling = mk.Primitive<ResamplingPrimitive>(key.str(), [&] {
      auto p = std::make_shared<ResamplingPrimitive>();
      dnnl::resampling_forward::desc desc(
          dnnl::prop_kind::forward_inference,
          kMethod == InterpMethod::kNearest
              ? dnnl::algorithm::resampling_nearest
              : dnnl::algorithm::resampling_linear,
          src_md,
          src_md == src_plain
              ? dst_plain
              : dnnl::memory::desc(dst, dnnl::memory::data_type::f32,
                                   dnnl::memory::format_tag::any));
      p->pd = dnnl::resampling_forward::primitive_desc(desc, mk.engine());
      if (IsSlowImplementation(p->pd))
        return std::shared_ptr<ResamplingPrimitive>();
      p->prim = dnnl::resampling_forward(p->pd);
      p->dst_layout = MakeLayout(p->pd.dst_desc(), dst_plain, mk.engine());
      return p;
    });
    if (!resampling) {
      RunPlainKernel<T>(ctx);
      return;
    }
    const dnnl::memory src_mem =
        UserMemory(resampling->pd.src_desc(), mk.engine(), x->data<T>());
    const dnnl::memory dst_mem = OutputMemory<T>(
        ctx, &mk, out, resampling->dst_layout, resampling->pd.dst_desc());
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, src_mem},
                                                  {DNNL_ARG_DST, dst_mem}};
    RunPrimitive(resampling->prim, mk.stream(), args);
    mk.stream().wait();
    // Kept only if X was read as it came (the signature still holds).
    if (!scale_tensor && signature.Matches(ctx, {x})) {
      KeepUnary(ctx, signature, resampling->dst_layout, resampling->pd,
                resampling->prim, std::move(args));
    }
  }
};

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
