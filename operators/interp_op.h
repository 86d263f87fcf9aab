// Definition shared by the resize ops nearest_interp_v2 and
// bilinear_interp_v2 (spec §12): slots, attributes and the output-size
// rule (SizeTensor > Scale tensor > scale attribute > out_d/out_h/out_w,
// then OutSize overrides the size but not the scale). The kernels call
// ResolveInterp again, since the coordinate ratio depends on the scale
// that was found.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "framework/op_registry.h"
#include "operators/shape_op_utils.h"
#include "operators/value_inputs_context.h"

namespace paddle_lite {
namespace operators {

/// Sizes of a resize. Spatial axes are (d, h, w); a rank-4 input has no d
/// and a rank-3 input only w: absent axes have size 1 and no scale.
struct InterpGeometry {
  bool channel_last = false;
  int spatial_rank = 2;  ///< 1, 2 or 3 (input rank - 2)
  int64_t batch = 0;
  int64_t channels = 0;
  int64_t in[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  /// The scale found in step 2 of the size rule, per axis; <= 0 when the
  /// size came from elsewhere (then the ratio is in / out).
  float scale[3] = {-1.f, -1.f, -1.f};

  /// [N, C, (out_d,) (out_h,) out_w], or channel-last.
  framework::DDim OutputDims() const {
    framework::DDim dims = {batch};
    if (!channel_last) dims.push_back(channels);
    for (int i = 3 - spatial_rank; i < 3; ++i) dims.push_back(out[i]);
    if (channel_last) dims.push_back(channels);
    return dims;
  }
};

/// Paddle's source-coordinate ratio of one axis: 0 for a 1-pixel output,
/// corner to corner with align_corners, else 1 / scale when a scale was
/// given, else in / out.
inline float InterpRatio(int64_t in,
                         int64_t out,
                         float scale,
                         bool align_corners) {
  if (out <= 1) return 0.f;
  if (align_corners) {
    return static_cast<float>(in - 1) / static_cast<float>(out - 1);
  }
  return scale > 0.f ? static_cast<float>(1.0 / scale)
                     : static_cast<float>(in) / static_cast<float>(out);
}

/// A source position truncated to an index, at most `last`: a position past
/// it, which an extreme scale gives (or NaN: an infinite ratio times 0),
/// is `last`, where converting it would be undefined.
inline int64_t SourceIndexAtMost(double pos, int64_t last) {
  if (!(pos < static_cast<double>(last))) return last;
  return static_cast<int64_t>(pos);
}

/// Nearest source index per output index of one axis. Paddle does not
/// clamp; we clamp to the last pixel so an inconsistent scale cannot read
/// out of bounds.
inline std::vector<int64_t> NearestSourceIndex(int64_t in,
                                               int64_t out,
                                               float scale,
                                               bool align_corners) {
  const float ratio = InterpRatio(in, out, scale, align_corners);
  std::vector<int64_t> index(static_cast<size_t>(std::max<int64_t>(out, 0)));
  for (int64_t k = 0; k < out; ++k) {
    // Float product; Paddle's + 0.5 is a double addition.
    const float pos = ratio * static_cast<float>(k);
    index[k] = SourceIndexAtMost(align_corners ? pos + 0.5 : pos, in - 1);
  }
  return index;
}

/// An output size from a scale: Paddle truncates the float product of
/// `in` and `scale`; a product past any real size (or NaN) would make the
/// conversion undefined, so it throws InvalidArgument naming `op` and
/// `what` (whose dim `in` is).
inline int64_t ScaledInterpSize(const std::string& op,
                                const std::string& what,
                                int64_t in,
                                float scale) {
  const float size = static_cast<float>(in) * scale;
  PADDLE_ENFORCE(size < 2147483648.f,
                 errors::InvalidArgument(
                     op, ": scale ", scale, " of ", what, " dim ", in,
                     " gives an output size of ", size, ", over 2^31"));
  return static_cast<int64_t>(size);
}

/// Layout names Paddle writes per rank: NCW/NCHW/NCDHW or NWC/NHWC/NDHWC
/// ("AnyLayout" from 1.x files is channel-first).
inline bool IsInterpChannelLast(const std::string& layout) {
  return layout == "NHWC" || layout == "NDHWC" || layout == "NWC";
}

/// Validates X and the size inputs/attributes of a resize op and applies
/// the size rule of §12. Reads the host tensors OutSize, SizeTensor and
/// Scale when bound. Throws InvalidArgument naming the op, X's dims and the
/// offending input or attribute.
inline InterpGeometry ResolveInterp(const framework::ExecutionContext& ctx) {
  const std::string& type = ctx.op().Type();
  const framework::Tensor* x = ctx.Input<framework::Tensor>("X");
  PADDLE_ENFORCE_NOT_NULL(x, errors::NotFound(type, ": input X is not bound"));
  const framework::DDim& dims = x->dims();
  const int rank = static_cast<int>(dims.size());
  PADDLE_ENFORCE(rank >= 3 && rank <= 5,
                 errors::InvalidArgument(
                     type,
                     ": X must be 3-D, 4-D or 5-D ([N, C, (D,) (H,) W] "
                     "or channel-last), got ",
                     dims));
  InterpGeometry g;
  const std::string layout = ctx.Attr<std::string>("data_layout");
  g.channel_last = IsInterpChannelLast(layout);
  g.spatial_rank = rank - 2;
  const int first = 3 - g.spatial_rank;  // first present axis of (d, h, w)
  const int first_dim = g.channel_last ? 1 : 2;
  g.batch = dims[0];
  g.channels = g.channel_last ? dims[rank - 1] : dims[1];
  for (int i = first; i < 3; ++i) {
    g.in[i] = dims[first_dim + i - first];
    PADDLE_ENFORCE_GT(
        g.in[i], 0,
        errors::InvalidArgument(type,
                                ": the spatial dims of X must be > 0 (there "
                                "is nothing to sample from), got X ",
                                dims, " with data_layout ", layout));
  }

  auto bad_count = [&](const std::string& what, size_t got) {
    return errors::InvalidArgument(type, ": ", what, " must give ",
                                   g.spatial_rank, " output sizes for the ",
                                   rank, "-D X ", dims, ", got ", got);
  };
  // Step 1: SizeTensor wins outright; no scale takes part.
  const size_t size_tensors =
      ctx.HasInput("SizeTensor") ? ctx.InputSize("SizeTensor") : 0;
  if (size_tensors > 0) {
    std::vector<int64_t> sizes;
    for (const framework::Tensor* t :
         ctx.MultiInput<framework::Tensor>("SizeTensor")) {
      PADDLE_ENFORCE(t != nullptr && t->numel() == 1,
                     errors::InvalidArgument(
                         type, ": every SizeTensor must hold one value, got ",
                         t ? framework::TensorSummary(*t) : "nothing"));
      sizes.push_back(IntTensorValues(*t, type, "SizeTensor")[0]);
    }
    PADDLE_ENFORCE_EQ(sizes.size(), static_cast<size_t>(g.spatial_rank),
                      bad_count("SizeTensor", sizes.size()));
    for (int i = first; i < 3; ++i) g.out[i] = sizes[i - first];
  } else {
    // Step 2: a scale from the Scale tensor (1 value = every axis) or the
    // scale attribute (needs a value per axis).
    std::vector<float> scales;
    const framework::Tensor* scale_t =
        ctx.HasInput("Scale") ? ctx.Input<framework::Tensor>("Scale") : nullptr;
    if (scale_t != nullptr) {
      const int64_t n = scale_t->numel();
      PADDLE_ENFORCE(n == 1 || n >= g.spatial_rank,
                     errors::InvalidArgument(
                         type, ": input Scale must hold 1 or ", g.spatial_rank,
                         " values for X ", dims, ", got ",
                         framework::TensorSummary(*scale_t)));
      for (int64_t i = 0; i < n; ++i) {
        if (scale_t->dtype() == framework::DataType::kFloat64) {
          scales.push_back(static_cast<float>(scale_t->data<double>()[i]));
        } else {
          PADDLE_ENFORCE_EQ(
              scale_t->dtype(), framework::DataType::kFloat32,
              errors::InvalidArgument(type,
                                      ": input Scale must be float32 or "
                                      "float64, got ",
                                      framework::TensorSummary(*scale_t)));
          scales.push_back(scale_t->data<float>()[i]);
        }
      }
      if (n == 1) scales.assign(g.spatial_rank, scales[0]);
    } else {
      scales = ctx.Attr<std::vector<float>>("scale");
      if (scales.size() < static_cast<size_t>(g.spatial_rank)) scales.clear();
    }
    bool use_scale = !scales.empty();
    for (float s : scales) use_scale = use_scale && s > 0.f;
    if (use_scale) {
      for (int i = first; i < 3; ++i) {
        g.scale[i] = scales[i - first];
        g.out[i] = ScaledInterpSize(type, "input", g.in[i], g.scale[i]);
      }
    } else {
      const char* names[3] = {"out_d", "out_h", "out_w"};
      for (int i = first; i < 3; ++i) g.out[i] = ctx.Attr<int>(names[i]);
    }
    // Step 3: OutSize overrides the size; the scale still sets the ratio.
    const framework::Tensor* out_size =
        ctx.HasInput("OutSize") ? ctx.Input<framework::Tensor>("OutSize")
                                : nullptr;
    if (out_size != nullptr) {
      const auto sizes = IntTensorValues(*out_size, type, "OutSize");
      PADDLE_ENFORCE_EQ(sizes.size(), static_cast<size_t>(g.spatial_rank),
                        bad_count("OutSize", sizes.size()));
      for (int i = first; i < 3; ++i) g.out[i] = sizes[i - first];
    }
  }
  for (int i = first; i < 3; ++i) {
    PADDLE_ENFORCE_GT(
        g.out[i], 0,
        errors::InvalidArgument(
            type, ": output size ", g.OutputDims(), " for X ", dims,
            " is not positive; set out_h/out_w (out_d), a positive scale, "
            "OutSize or SizeTensor"));
  }
  return g;
}

/// What a kernel checks before writing Out: its dims, set by shape
/// inference, are those the op's inputs give now. A mismatch (a framework
/// fault) would otherwise write past Out's buffer.
inline void CheckInterpOutput(const framework::Tensor& out,
                              const InterpGeometry& g,
                              const std::string& type) {
  PADDLE_ENFORCE(
      out.dims() == g.OutputDims(),
      errors::PreconditionNotMet(type, ": Out was sized ", out.dims(),
                                 " but its inputs now give ", g.OutputDims()));
}

/// The op class: Out gets the resolved dims and X's LoD.
class InterpOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  void InferShape(framework::InferShapeContext* ctx) const override {
    const ValueInputsContext values(*ctx, {"OutSize", "SizeTensor", "Scale"});
    const InterpGeometry g = ResolveInterp(values.context());
    ctx->SetOutputDim("Out", g.OutputDims());
    ctx->ShareLoD("X", "Out");
  }
};

/// Maker of the *_interp_v2 ops; subclasses give interp_method's default.
class InterpOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() final {
    AddInput("X", "[N, C, (D,) (H,) W] or channel-last");
    AddInput("OutSize", "int32 [spatial rank]: output size, overrides scale")
        .AsDispensable();
    AddInput("SizeTensor", "1-element int32 tensors, one per output size")
        .AsDispensable()
        .AsDuplicable();
    AddInput("Scale", "float tensor of 1 or spatial-rank scales")
        .AsDispensable();
    AddOutput("Out", "the resized tensor");
    AddAttr<std::string>("data_layout",
                         "NCHW (NCW, NCDHW) or NHWC (NWC, NDHWC)")
        .SetDefault("NCHW");
    AddAttr<int32_t>("out_d", "output depth; <= 0 means unset").SetDefault(0);
    AddAttr<int32_t>("out_h", "output height; <= 0 means unset").SetDefault(0);
    AddAttr<int32_t>("out_w", "output width; <= 0 means unset").SetDefault(0);
    AddAttr<std::vector<float>>("scale",
                                "per-axis scales; used when it has one value "
                                "per spatial axis, all > 0")
        .SetDefault({});
    AddAttr<std::string>("interp_method",
                         "informative: the op type decides the method")
        .SetDefault(DefaultMethod());
    AddAttr<bool>("align_corners", "map corner pixels onto corner pixels")
        .SetDefault(true);
    AddAttr<int32_t>("align_mode",
                     "bilinear without align_corners: 0 = half-pixel, 1 = "
                     "asymmetric (src = dst * in / out)")
        .SetDefault(1);
  }

 protected:
  virtual std::string DefaultMethod() const = 0;
};

}  // namespace operators
}  // namespace paddle_lite
