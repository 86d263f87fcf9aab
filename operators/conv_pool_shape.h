// Padding and output-size rules shared by the 2-D convolution and pooling
// ops (conv2d, depthwise_conv2d, pool2d) and their kernels: spec §2.1 and
// §3. Op definitions call the Resolve* functions in InferShape to validate
// and size the output; kernels call them again to get the same geometry, so
// the rules live in exactly one place.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "framework/ddim.h"
#include "framework/operator.h"
#include "operators/fused_activation.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace operators {

/// An op's attribute of type T, read in place when it is stored as T (the
/// usual case) and converted otherwise (files of other versions). The
/// resolvers below run at every new input shape, twice per op (shape
/// inference and kernel): copying the vectors and strings was a twelfth
/// of a small model's first run of a shape.
template <typename T>
class AttrView {
 public:
  AttrView(const framework::OperatorBase& op, const std::string& name) {
    const framework::Attribute& stored = op.GetAttr(name);
    value_ = std::get_if<T>(&stored);
    if (value_ == nullptr) {
      converted_ = framework::AttrCast<T>(stored);
      value_ = &converted_;
    }
  }
  AttrView(const AttrView&) = delete;
  AttrView& operator=(const AttrView&) = delete;
  const T& operator*() const { return *value_; }
  const T* operator->() const { return value_; }

 private:
  const T* value_ = nullptr;
  T converted_;
};

/// True when activations are [N, H, W, C]. "NCHW" and the 1.x default
/// "AnyLayout" are channel-first.
inline bool IsChannelLast(const std::string& data_format) {
  return data_format == "NHWC";
}

/// Begin/end paddings of the two spatial dims: [top, bottom, left, right].
struct Paddings2D {
  int64_t top = 0;
  int64_t bottom = 0;
  int64_t left = 0;
  int64_t right = 0;
};

/// Step 1 of §2.1: 2 elements [ph, pw] are symmetric, 4 elements are
/// [top, bottom, left, right]; any other length is InvalidArgument.
inline Paddings2D NormalizePaddings(const std::string& op_type,
                                    const std::vector<int>& paddings) {
  if (paddings.size() == 2) {
    return {paddings[0], paddings[0], paddings[1], paddings[1]};
  }
  PADDLE_ENFORCE_EQ(
      paddings.size(), 4u,
      errors::InvalidArgument(op_type,
                              ": attribute 'paddings' must have 2 elements "
                              "[pad_h, pad_w] or 4 elements [top, bottom, "
                              "left, right], got ",
                              paddings));
  return {paddings[0], paddings[1], paddings[2], paddings[3]};
}

/// The padding_algorithm attribute: any value but "SAME" and "VALID"
/// keeps the given paddings, as "EXPLICIT" does.
enum class PaddingAlgorithm { kExplicit, kSame, kValid };

inline PaddingAlgorithm ParsePaddingAlgorithm(const std::string& name) {
  if (name == "SAME") return PaddingAlgorithm::kSame;
  if (name == "VALID") return PaddingAlgorithm::kValid;
  return PaddingAlgorithm::kExplicit;
}

/// Step 2 of §2.1 for one spatial dim: "SAME" pads so that
/// out = ceil(in / stride), the odd pixel going to the end; "VALID" pads
/// nothing; "EXPLICIT" keeps the given paddings.
inline void ApplyPaddingAlgorithm(PaddingAlgorithm algorithm,
                                  int64_t in,
                                  int64_t kernel,
                                  int64_t stride,
                                  int64_t* pad_begin,
                                  int64_t* pad_end) {
  if (algorithm == PaddingAlgorithm::kSame) {
    int64_t out = (in + stride - 1) / stride;
    int64_t pad_sum = std::max<int64_t>((out - 1) * stride + kernel - in, 0);
    *pad_begin = pad_sum / 2;
    *pad_end = pad_sum - *pad_begin;
  } else if (algorithm == PaddingAlgorithm::kValid) {
    *pad_begin = 0;
    *pad_end = 0;
  }
}

/// ApplyPaddingAlgorithm for both spatial dims of a window.
inline void ApplyPaddingAlgorithm2D(PaddingAlgorithm algorithm,
                                    int64_t in_h,
                                    int64_t in_w,
                                    int64_t kernel_h,
                                    int64_t kernel_w,
                                    int64_t stride_h,
                                    int64_t stride_w,
                                    Paddings2D* pad) {
  ApplyPaddingAlgorithm(algorithm, in_h, kernel_h, stride_h, &pad->top,
                        &pad->bottom);
  ApplyPaddingAlgorithm(algorithm, in_w, kernel_w, stride_w, &pad->left,
                        &pad->right);
}

/// Convolution output size of one spatial dim. Paddle computes it with C++
/// integer division, which truncates toward zero, so a window that does not
/// fit by less than a stride still yields one output; we keep that.
inline int64_t ConvOutputSize(int64_t in,
                              int64_t kernel,
                              int64_t dilation,
                              int64_t pad_begin,
                              int64_t pad_end,
                              int64_t stride) {
  int64_t dilated_kernel = dilation * (kernel - 1) + 1;
  return (in + pad_begin + pad_end - dilated_kernel) / stride + 1;
}

/// Pooling output size of one spatial dim (§3 step 4), same truncation.
inline int64_t PoolOutputSize(int64_t in,
                              int64_t kernel,
                              int64_t pad_begin,
                              int64_t pad_end,
                              int64_t stride,
                              bool ceil_mode) {
  int64_t span = in - kernel + pad_begin + pad_end;
  if (ceil_mode) span += stride - 1;
  return span / stride + 1;
}

/// Reads a 2-element INTS attribute (strides, dilations, ksize) and checks
/// its length.
inline std::array<int, 2> Read2DAttr(const framework::OperatorBase& op,
                                     const std::string& name) {
  AttrView<std::vector<int>> v(op, name);
  PADDLE_ENFORCE_EQ(v->size(), 2u,
                    errors::InvalidArgument(op.Type(), ": attribute '", name,
                                            "' must have 2 elements [h, w], "
                                            "got ",
                                            *v));
  return {(*v)[0], (*v)[1]};
}

/// Read2DAttr for a window's sizes, strides or dilations: both must be > 0.
/// `type` names the op in the message; `input`, when given, is named too.
inline std::array<int, 2> ReadPositive2DAttr(
    const framework::OperatorBase& op,
    const std::string& type,
    const std::string& name,
    const framework::DDim* input = nullptr) {
  const std::array<int, 2> v = Read2DAttr(op, name);
  if (v[0] > 0 && v[1] > 0) return v;
  const std::vector<int> got(v.begin(), v.end());
  if (input != nullptr) {
    PADDLE_THROW(errors::InvalidArgument(type, ": attribute '", name,
                                         "' must be > 0, got ", got, " for X ",
                                         *input));
  }
  PADDLE_THROW(errors::InvalidArgument(type, ": attribute '", name,
                                       "' must be > 0, got ", got));
}

/// Everything a 2-D convolution kernel needs, after every attribute rule
/// is applied (paddings resolved, dilation forced to 1 under SAME).
struct Conv2DGeometry {
  bool channel_last = false;
  int64_t batch = 0;
  int64_t in_channels = 0;
  int64_t in_h = 0;
  int64_t in_w = 0;
  int64_t out_channels = 0;
  int64_t kernel_h = 0;
  int64_t kernel_w = 0;
  int64_t groups = 1;
  int64_t stride_h = 1;
  int64_t stride_w = 1;
  int64_t dilation_h = 1;
  int64_t dilation_w = 1;
  Paddings2D pad;
  int64_t out_h = 0;
  int64_t out_w = 0;

  /// [N, M, OH, OW], or [N, OH, OW, M] for NHWC.
  framework::DDim OutputDims() const {
    if (channel_last) return {batch, out_h, out_w, out_channels};
    return {batch, out_channels, out_h, out_w};
  }
};

/// The attributes of a conv2d or conv2d_transpose op, checked: what its
/// geometry takes besides the shapes. Read once per op (ConvAttrsOf).
struct ConvAttrs {
  bool channel_last = false;
  int groups = 1;
  std::array<int, 2> strides = {1, 1};
  std::array<int, 2> dilations = {1, 1};
  Paddings2D pad;  // as given, before the padding algorithm
  PaddingAlgorithm algorithm = PaddingAlgorithm::kExplicit;
  /// A fused op's activation (fuse_activation, fuse_alpha, fuse_beta);
  /// none for ops without those attributes.
  FusedActivation activation;
};

/// The op's ConvAttrs, read at its first call (OperatorBase::Derived).
/// Throws InvalidArgument naming the op and the attribute.
inline const ConvAttrs& ConvAttrsOf(const framework::OperatorBase& op) {
  return op.Derived<ConvAttrs>([](const framework::OperatorBase& o) {
    const std::string& type = o.Type();
    ConvAttrs a;
    a.channel_last = IsChannelLast(*AttrView<std::string>(o, "data_format"));
    a.groups = o.Attr<int>("groups");
    PADDLE_ENFORCE_GT(a.groups, 0,
                      errors::InvalidArgument(type,
                                              ": attribute 'groups' must "
                                              "be > 0, got ",
                                              a.groups));
    a.strides = ReadPositive2DAttr(o, type, "strides");
    a.dilations = ReadPositive2DAttr(o, type, "dilations");
    a.pad = NormalizePaddings(type, *AttrView<std::vector<int>>(o, "paddings"));
    a.algorithm =
        ParsePaddingAlgorithm(*AttrView<std::string>(o, "padding_algorithm"));
    if (o.HasAttr("fuse_activation")) {
      a.activation.type = o.Attr<std::string>("fuse_activation");
    }
    if (o.HasAttr("fuse_alpha")) {
      a.activation.alpha = o.Attr<float>("fuse_alpha");
    }
    if (o.HasAttr("fuse_beta")) {
      a.activation.beta = o.Attr<float>("fuse_beta");
    }
    return a;
  });
}

/// Applies the strides, dilations, paddings and padding_algorithm of
/// `attrs` to `g` (whose in_* and kernel_* are set): the window rules
/// conv2d and conv2d_transpose share (§2.1; under SAME the dilation is
/// forced to 1).
inline void ResolveWindow(const ConvAttrs& attrs, Conv2DGeometry* geometry) {
  Conv2DGeometry& g = *geometry;
  g.stride_h = attrs.strides[0];
  g.stride_w = attrs.strides[1];
  g.dilation_h = attrs.dilations[0];
  g.dilation_w = attrs.dilations[1];
  g.pad = attrs.pad;
  ApplyPaddingAlgorithm2D(attrs.algorithm, g.in_h, g.in_w, g.kernel_h,
                          g.kernel_w, g.stride_h, g.stride_w, &g.pad);
  if (attrs.algorithm == PaddingAlgorithm::kSame) {
    g.dilation_h = 1;
    g.dilation_w = 1;
  }
}

/// Validates the Input and Filter dims and the attributes of a 2-D
/// convolution op (conv2d, depthwise_conv2d) and resolves its geometry.
/// Throws InvalidArgument naming the op, the shapes and the attribute.
inline Conv2DGeometry ResolveConv2D(const framework::OperatorBase& op,
                                    const framework::DDim& input,
                                    const framework::DDim& filter) {
  const std::string& type = op.Type();
  const ConvAttrs& attrs = ConvAttrsOf(op);
  Conv2DGeometry g;
  g.channel_last = attrs.channel_last;
  PADDLE_ENFORCE_EQ(input.size(), 4u,
                    errors::InvalidArgument(type, ": Input must be 4-D (",
                                            g.channel_last ? "NHWC" : "NCHW",
                                            "), got ", input));
  PADDLE_ENFORCE_EQ(
      filter.size(), 4u,
      errors::InvalidArgument(type,
                              ": Filter must be 4-D [M, C / groups, "
                              "KH, KW], got ",
                              filter, " for Input ", input));
  g.groups = attrs.groups;
  g.batch = input[0];
  g.in_channels = g.channel_last ? input[3] : input[1];
  g.in_h = g.channel_last ? input[1] : input[2];
  g.in_w = g.channel_last ? input[2] : input[3];
  g.out_channels = filter[0];
  g.kernel_h = filter[2];
  g.kernel_w = filter[3];
  PADDLE_ENFORCE_EQ(
      g.in_channels, filter[1] * g.groups,
      errors::InvalidArgument(
          type, ": Filter dims ", filter, " need Input channels ", filter[1],
          " * groups ", g.groups, " = ", filter[1] * g.groups,
          ", but Input is ", input, " (data_format ",
          g.channel_last ? "NHWC" : "NCHW",
          "); the error may come from a wrong data_format or groups"));
  PADDLE_ENFORCE_EQ(
      g.out_channels % g.groups, 0,
      errors::InvalidArgument(type, ": Filter dims ", filter,
                              ": output channels ", g.out_channels,
                              " must be divisible by groups ", g.groups));
  PADDLE_ENFORCE(g.kernel_h > 0 && g.kernel_w > 0,
                 errors::InvalidArgument(type, ": Filter dims ", filter,
                                         " need a non-empty kernel"));

  ResolveWindow(attrs, &g);
  g.out_h = ConvOutputSize(g.in_h, g.kernel_h, g.dilation_h, g.pad.top,
                           g.pad.bottom, g.stride_h);
  g.out_w = ConvOutputSize(g.in_w, g.kernel_w, g.dilation_w, g.pad.left,
                           g.pad.right, g.stride_w);
  PADDLE_ENFORCE(
      g.out_h > 0 && g.out_w > 0,
      errors::InvalidArgument(
          type, ": output size [", g.out_h, ", ", g.out_w,
          "] is not positive for Input ", input, ", Filter ", filter,
          ", strides [", g.stride_h, ", ", g.stride_w, "], paddings [",
          g.pad.top, ", ", g.pad.bottom, ", ", g.pad.left, ", ", g.pad.right,
          "], dilations [", g.dilation_h, ", ", g.dilation_w,
          "]; the padded input must be at "
          "least as large as the dilated "
          "filter"));
  return g;
}

/// Everything a pool2d kernel needs after §3 steps 1-4.
struct Pool2DGeometry {
  bool channel_last = false;
  bool adaptive = false;
  int64_t batch = 0;
  int64_t channels = 0;
  int64_t in_h = 0;
  int64_t in_w = 0;
  int64_t kernel_h = 0;  // with adaptive: the output size
  int64_t kernel_w = 0;
  int64_t stride_h = 1;
  int64_t stride_w = 1;
  Paddings2D pad;
  int64_t out_h = 0;
  int64_t out_w = 0;

  framework::DDim OutputDims() const {
    if (channel_last) return {batch, out_h, out_w, channels};
    return {batch, channels, out_h, out_w};
  }
};

/// Validates X's dims and pool2d's attributes and resolves the geometry.
/// The attributes of a pool2d op, checked; read once per op.
struct PoolAttrs {
  bool channel_last = false;
  bool global = false;
  bool adaptive = false;
  bool ceil_mode = false;
  std::array<int, 2> ksize = {0, 0};  // {0, 0} under global pooling
  std::array<int, 2> strides = {1, 1};
  Paddings2D pad;  // as given, before the padding algorithm
  PaddingAlgorithm algorithm = PaddingAlgorithm::kExplicit;
};

inline Pool2DGeometry ResolvePool2D(const framework::OperatorBase& op,
                                    const framework::DDim& x) {
  const std::string& type = op.Type();
  const PoolAttrs& attrs =
      op.Derived<PoolAttrs>([&x, &type](const framework::OperatorBase& o) {
        PoolAttrs a;
        a.channel_last =
            IsChannelLast(*AttrView<std::string>(o, "data_format"));
        a.global = o.Attr<bool>("global_pooling");
        a.adaptive = o.Attr<bool>("adaptive");
        a.ceil_mode = o.Attr<bool>("ceil_mode");
        if (!a.global) {
          // Files with global pooling hold [-1, -1] here: only check
          // otherwise.
          a.ksize = ReadPositive2DAttr(o, type, "ksize", &x);
        }
        a.strides = ReadPositive2DAttr(o, type, "strides");
        a.pad =
            NormalizePaddings(type, *AttrView<std::vector<int>>(o, "paddings"));
        a.algorithm = ParsePaddingAlgorithm(
            *AttrView<std::string>(o, "padding_algorithm"));
        return a;
      });
  Pool2DGeometry g;
  g.channel_last = attrs.channel_last;
  PADDLE_ENFORCE_EQ(
      x.size(), 4u,
      errors::InvalidArgument(type, ": X must be 4-D (",
                              g.channel_last ? "NHWC" : "NCHW", "), got ", x));
  g.batch = x[0];
  g.channels = g.channel_last ? x[3] : x[1];
  g.in_h = g.channel_last ? x[1] : x[2];
  g.in_w = g.channel_last ? x[2] : x[3];

  const bool global = attrs.global;
  g.adaptive = attrs.adaptive;
  g.kernel_h = attrs.ksize[0];
  g.kernel_w = attrs.ksize[1];
  g.stride_h = attrs.strides[0];
  g.stride_w = attrs.strides[1];
  g.pad = attrs.pad;
  ApplyPaddingAlgorithm2D(attrs.algorithm, g.in_h, g.in_w, g.kernel_h,
                          g.kernel_w, g.stride_h, g.stride_w, &g.pad);
  if (global || g.adaptive) g.pad = Paddings2D();
  if (global) {
    g.kernel_h = g.in_h;
    g.kernel_w = g.in_w;
  }

  if (g.adaptive) {
    g.out_h = g.kernel_h;
    g.out_w = g.kernel_w;
  } else {
    const bool ceil_mode = attrs.ceil_mode;
    g.out_h = PoolOutputSize(g.in_h, g.kernel_h, g.pad.top, g.pad.bottom,
                             g.stride_h, ceil_mode);
    g.out_w = PoolOutputSize(g.in_w, g.kernel_w, g.pad.left, g.pad.right,
                             g.stride_w, ceil_mode);
  }
  PADDLE_ENFORCE(
      g.out_h > 0 && g.out_w > 0,
      errors::InvalidArgument(
          type, ": output size [", g.out_h, ", ", g.out_w,
          "] is not positive for X ", x, ", ksize [", g.kernel_h, ", ",
          g.kernel_w, "], strides [", g.stride_h, ", ", g.stride_w,
          "], paddings [", g.pad.top, ", ", g.pad.bottom, ", ", g.pad.left,
          ", ", g.pad.right,
          "]; the padded input must be at least as large as the window"));
  return g;
}

}  // namespace operators
}  // namespace paddle_lite
