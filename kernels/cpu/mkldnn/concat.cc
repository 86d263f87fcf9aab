// concat with oneDNN, for inputs that come in MKLDNN layouts (a detector's
// feature pyramid): oneDNN joins them in their layout and the output keeps
// one, where the PLAIN kernel would need every input converted first and
// the next convolution would reorder the result back. Inputs all
// channel-last, or all blocked alike, joined along channels are copied by
// our own loops (ConcatByCopy). Plain inputs, an
// AxisTensor, empty inputs, or layouts oneDNN can only join with its
// reference code go to the PLAIN kernel.
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "framework/kernel_registry.h"
#include "kernels/cpu/mkldnn/mkldnn_helper.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

struct ConcatPrimitive {
  dnnl::concat::primitive_desc pd;
  dnnl::concat prim;
  std::shared_ptr<const MkldnnLayout> dst_layout;  // null: dst is plain
  // When dst is a strided layout (NHWC for channel-last inputs): one
  // reorder per input into its slice of dst, 3-4x faster than oneDNN 2.6's
  // concat, which copies these element by element.
  std::vector<dnnl::reorder> to_slices;
  std::vector<dnnl::memory::desc> slices;
};

/// Fills `p->to_slices` and `p->slices` when dst is strided (no blocks)
/// and oneDNN has a fast reorder from every input into its slice.
void MakeSliceReorders(const std::vector<dnnl::memory::desc>& srcs,
                       int axis,
                       const dnnl::engine& engine,
                       ConcatPrimitive* p) {
  const dnnl::memory::desc dst = p->pd.dst_desc();
  if (dst.data.format_kind != dnnl_blocked ||
      dst.data.format_desc.blocking.inner_nblks != 0) {
    return;
  }
  std::vector<dnnl::reorder> reorders;
  std::vector<dnnl::memory::desc> slices;
  Dims offsets(dst.dims().size(), 0);
  for (const dnnl::memory::desc& src : srcs) {
    slices.push_back(dst.submemory_desc(src.dims(), offsets));
    offsets[axis] += src.dims()[axis];
    dnnl::reorder::primitive_desc pd(engine, src, engine, slices.back());
    if (IsSlowImplementation(pd)) return;
    reorders.emplace_back(pd);
  }
  p->to_slices = std::move(reorders);
  p->slices = std::move(slices);
}

/// The layout of a concat's output joined by our own copy from inputs
/// blocked by channels (ConcatByCopy), shared by every run of its dims.
struct BlockedConcatLayout {
  std::shared_ptr<const MkldnnLayout> layout;
};

/// The format tag, of those ConcatByCopy joins, that `md` (of `dims`) is
/// stored in: channels blocked by 8 or 16 (what oneDNN's convolutions
/// write on AVX2 and AVX-512), or undef.
dnnl::memory::format_tag ChannelBlocking(const dnnl::memory::desc& md,
                                         const Dims& dims) {
  for (auto tag :
       {dnnl::memory::format_tag::aBcd8b, dnnl::memory::format_tag::aBcd16b}) {
    if (md == dnnl::memory::desc(dims, dnnl::memory::data_type::f32, tag)) {
      return tag;
    }
  }
  return dnnl::memory::format_tag::undef;
}

/// Joins 4-D inputs along channels by copying, when all are channel-last
/// (what our own convolution loops write: a pixel's channels from each
/// input in turn) or all blocked alike by 8 or 16 channels with whole
/// blocks each (what oneDNN's write: each image's blocks from each input
/// in turn); false, with nothing done, for any other. oneDNN's concat
/// and its reorders into the output's slices copied these at about 2 GB/s
/// (a detector's neck: 5 ms of 60 for four 160x160 maps of 24 channels),
/// and make code for every input size; these copies make nothing.
template <typename T>
bool ConcatByCopy(const framework::ExecutionContext& ctx,
                  MkldnnContext* mk,
                  const std::vector<const framework::Tensor*>& inputs,
                  const std::vector<dnnl::memory::desc>& srcs,
                  int axis,
                  framework::Tensor* out) {
  if (axis != 1 || srcs[0].dims().size() != 4) return false;
  Dims dst_dims = srcs[0].dims();
  dst_dims[1] = 0;
  const Dims first_dims = srcs[0].dims();
  const bool channel_last = srcs[0] == ActivationMd(first_dims, true);
  const dnnl::memory::format_tag blocking =
      channel_last ? dnnl::memory::format_tag::undef
                   : ChannelBlocking(srcs[0], first_dims);
  if (!channel_last && blocking == dnnl::memory::format_tag::undef) {
    return false;
  }
  const int64_t block = blocking == dnnl::memory::format_tag::aBcd16b ? 16 : 8;
  for (const dnnl::memory::desc& md : srcs) {
    const Dims dims = md.dims();
    if (dims[0] != dst_dims[0] || dims[2] != first_dims[2] ||
        dims[3] != first_dims[3]) {
      return false;
    }
    if (channel_last
            ? md != ActivationMd(dims, true)
            : ChannelBlocking(md, dims) != blocking || dims[1] % block != 0) {
      return false;
    }
    dst_dims[1] += dims[1];
  }
  if (channel_last) {
    out->set_opaque_layout(mk->ChannelLastLayout(dst_dims));
  } else {
    const dnnl::memory::desc dst_md(dst_dims, dnnl::memory::data_type::f32,
                                    blocking);
    KeyBuilder key("concat_blocked_layout");
    key.Add(dst_md);
    auto kept = mk->Primitive<BlockedConcatLayout>(key.str(), [&] {
      auto made = std::make_shared<BlockedConcatLayout>();
      made->layout = MakeLayout(dst_md, PlainMd(dst_dims), mk->engine());
      return made;
    });
    out->set_opaque_layout(kept->layout);
  }
  T* dst = out->mutable_data<T>(ctx.GetPlace());
  if (framework::MakingOnly()) return true;
  const int64_t channels = dst_dims[1];
  const int64_t pixels = dst_dims[2] * dst_dims[3];
  const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
  if (channel_last) {
    dev.ParallelFor(dst_dims[0] * pixels, 2.0 * static_cast<double>(channels),
                    [&](int64_t begin, int64_t end) {
                      int64_t first = 0;
                      for (const framework::Tensor* in : inputs) {
                        const int64_t c = in->dims()[1];
                        const T* from = in->data<T>() + begin * c;
                        T* to = dst + begin * channels + first;
                        for (int64_t i = begin; i < end; ++i) {
                          std::memcpy(to, from, sizeof(T) * c);
                          from += c;
                          to += channels;
                        }
                        first += c;
                      }
                    });
    return true;
  }
  // Blocked: an image of each input is whole blocks of channels, each a
  // plane of pixels, so it lands in one piece at its first channel's block.
  const int64_t pieces = dst_dims[0] * static_cast<int64_t>(inputs.size());
  dev.ParallelFor(
      pieces,
      0.5 * static_cast<double>(channels * pixels) /
          static_cast<double>(inputs.size()),
      [&](int64_t begin, int64_t end) {
        for (int64_t piece = begin; piece < end; ++piece) {
          const int64_t n = piece / static_cast<int64_t>(inputs.size());
          const size_t i =
              static_cast<size_t>(piece % static_cast<int64_t>(inputs.size()));
          int64_t first = 0;
          for (size_t j = 0; j < i; ++j) first += inputs[j]->dims()[1];
          const int64_t c = inputs[i]->dims()[1];
          std::memcpy(dst + (n * channels + first) * pixels,
                      inputs[i]->data<T>() + n * c * pixels,
                      sizeof(T) * c * pixels);
        }
      });
  return true;
}

template <typename T>
class MkldnnConcatKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto inputs = ctx.MultiInput<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    bool any_layout = false;
    bool usable = !inputs.empty() && !ctx.HasInput("AxisTensor");
    for (const framework::Tensor* t : inputs) {
      usable = usable && t != nullptr && t->numel() > 0 &&
               t->rank() == inputs[0]->rank() && t->lod().empty();
      any_layout = any_layout || (t && MkldnnLayoutOf(*t) != nullptr);
    }
    if (!usable || !any_layout) {
      RunPlainKernel<T>(ctx);
      return;
    }
    const int rank = inputs[0]->rank();
    int axis = ctx.Attr<int32_t>("axis");
    if (axis < 0) axis += rank;

    MkldnnContext& mk = PrepareMkldnn(ctx);
    // Each input as stored: its own MKLDNN layout or plain.
    std::vector<dnnl::memory::desc> srcs;
    KeyBuilder key("concat", ctx);
    key.Add(axis);
    const auto& vars = ctx.InputVars("X");
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Dims dims(inputs[i]->dims().begin(), inputs[i]->dims().end());
      auto layout = LayoutFor(*inputs[i], PlainMd(dims));
      if (layout == nullptr) {
        // Made for another view of its dims (NHWC), if any: read it plain.
        framework::Tensor* t = vars[i]->GetMutable<framework::Tensor>();
        if (t->opaque_layout() != nullptr) {
          framework::ConvertToPlainLayout(t, mk.PlainScratch(*t));
        }
      }
      srcs.push_back(layout ? layout->md() : PlainMd(dims));
      key.Add(srcs.back());
    }
    if (ConcatByCopy<T>(ctx, &mk, inputs, srcs, axis, out)) return;
    auto concat = mk.Primitive<ConcatPrimitive>(key.str(), [&] {
      auto p = std::make_shared<ConcatPrimitive>();
      Dims dst_dims = srcs[0].dims();
      dst_dims[axis] = 0;
      for (auto& md : srcs) dst_dims[axis] += md.dims()[axis];
      const dnnl::memory::desc dst_any(dst_dims, dnnl::memory::data_type::f32,
                                       dnnl::memory::format_tag::any);
      p->pd = dnnl::concat::primitive_desc(dst_any, axis, srcs, mk.engine());
      // "simple" is oneDNN's copying concat, the fast one here.
      if (std::string(p->pd.impl_info_str()).rfind("ref", 0) == 0) {
        return std::shared_ptr<ConcatPrimitive>();
      }
      p->prim = dnnl::concat(p->pd);
      try {
        MakeSliceReorders(srcs, axis, mk.engine(), p.get());
      } catch (const dnnl::error&) {
        p->to_slices.clear();
      }
      p->dst_layout =
          MakeLayout(p->pd.dst_desc(), PlainMd(dst_dims), mk.engine());
      return p;
    });
    if (!concat) {
      RunPlainKernel<T>(ctx);
      return;
    }
    if (!concat->to_slices.empty()) {
      const dnnl::memory dst = OutputMemory<T>(
          ctx, &mk, out, concat->dst_layout, concat->pd.dst_desc());
      for (size_t i = 0; i < inputs.size(); ++i) {
        dnnl::memory from =
            UserMemory(srcs[i], mk.engine(), inputs[i]->data<T>());
        dnnl::memory to =
            UserMemory(concat->slices[i], mk.engine(), dst.get_data_handle());
        RunReorder(concat->to_slices[i], mk.stream(), from, to);
      }
      mk.stream().wait();
      return;
    }
    std::unordered_map<int, dnnl::memory> args;
    for (size_t i = 0; i < inputs.size(); ++i) {
      args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)] =
          UserMemory(srcs[i], mk.engine(), inputs[i]->data<T>());
    }
    args[DNNL_ARG_DST] = OutputMemory<T>(ctx, &mk, out, concat->dst_layout,
                                         concat->pd.dst_desc());
    RunPrimitive(concat->prim, mk.stream(), args);
    mk.stream().wait();
  }
};

}  // namespace
}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(concat,
                   MKLDNN,
                   CPUPlace,
                   paddle_lite::kernels::mkldnn::MkldnnConcatKernel<float>);
