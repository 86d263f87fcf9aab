// Geometry of conv2d_transpose (spec §2.4): the padding rules of §2.1
// (from conv_pool_shape.h) plus the transpose's output-size rule with
// output_size / output_padding. The op definition calls it to validate and
// size Output; the kernel calls it again for the same numbers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "framework/ddim.h"
#include "framework/operator.h"
#include "operators/conv_pool_shape.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace operators {

/// Validates Input [N, Cin, H, W] (or NHWC), Filter [Cin, Cout / groups,
/// KH, KW] and the attributes of a conv2d_transpose op and resolves its
/// geometry. The fields of Conv2DGeometry keep their meaning: in_* describe
/// Input, out_* Output, so out_channels = Filter.dims[1] * groups. Throws
/// InvalidArgument naming the op, the shapes and the attribute.
inline Conv2DGeometry ResolveConv2DTranspose(const framework::OperatorBase& op,
                                             const framework::DDim& input,
                                             const framework::DDim& filter) {
  const std::string& type = op.Type();
  const ConvAttrs& attrs = ConvAttrsOf(op);
  const char* data_format = attrs.channel_last ? "NHWC" : "NCHW";
  Conv2DGeometry g;
  g.channel_last = attrs.channel_last;
  PADDLE_ENFORCE_EQ(input.size(), 4u,
                    errors::InvalidArgument(type, ": Input must be 4-D (",
                                            g.channel_last ? "NHWC" : "NCHW",
                                            "), got ", input));
  PADDLE_ENFORCE_EQ(
      filter.size(), 4u,
      errors::InvalidArgument(type,
                              ": Filter must be 4-D [Cin, Cout / groups, KH, "
                              "KW], got ",
                              filter, " for Input ", input));
  g.groups = attrs.groups;
  g.batch = input[0];
  g.in_channels = g.channel_last ? input[3] : input[1];
  g.in_h = g.channel_last ? input[1] : input[2];
  g.in_w = g.channel_last ? input[2] : input[3];
  PADDLE_ENFORCE_EQ(
      g.in_channels, filter[0],
      errors::InvalidArgument(
          type, ": Filter dims ", filter, " need ", filter[0],
          " Input channels (the transpose's filter is [Cin, Cout / groups, "
          "KH, KW]), but Input is ",
          input, " (data_format ", data_format,
          "); the error may come from a wrong data_format"));
  PADDLE_ENFORCE_EQ(g.in_channels % g.groups, 0,
                    errors::InvalidArgument(
                        type, ": Input channels ", g.in_channels, " of Input ",
                        input, " must be divisible by groups ", g.groups));
  g.out_channels = filter[1] * g.groups;
  g.kernel_h = filter[2];
  g.kernel_w = filter[3];
  PADDLE_ENFORCE(g.kernel_h > 0 && g.kernel_w > 0,
                 errors::InvalidArgument(type, ": Filter dims ", filter,
                                         " need a non-empty kernel"));

  // SAME is computed from the transpose's input size as for a forward
  // convolution, dilation forced to 1 (§2.4).
  ResolveWindow(attrs, &g);

  const auto output_size = op.Attr<std::vector<int>>("output_size");
  const auto output_padding = op.Attr<std::vector<int>>("output_padding");
  PADDLE_ENFORCE(output_size.empty() || output_size.size() == 2,
                 errors::InvalidArgument(type,
                                         ": attribute 'output_size' must be "
                                         "empty or [out_h, out_w], got ",
                                         output_size));
  PADDLE_ENFORCE(output_padding.empty() || output_padding.size() == 2,
                 errors::InvalidArgument(type,
                                         ": attribute 'output_padding' must "
                                         "be empty or [pad_h, pad_w], got ",
                                         output_padding));
  const int64_t in[2] = {g.in_h, g.in_w};
  const int64_t kernel[2] = {g.kernel_h, g.kernel_w};
  const int64_t stride[2] = {g.stride_h, g.stride_w};
  const int64_t dilation[2] = {g.dilation_h, g.dilation_w};
  const int64_t pad_sum[2] = {g.pad.top + g.pad.bottom,
                              g.pad.left + g.pad.right};
  int64_t out[2];
  for (int i = 0; i < 2; ++i) {
    const int64_t infer = (in[i] - 1) * stride[i] - pad_sum[i] +
                          dilation[i] * (kernel[i] - 1) + 1;
    if (!output_size.empty()) {
      PADDLE_ENFORCE(
          output_size[i] >= infer && output_size[i] < infer + stride[i],
          errors::InvalidArgument(
              type, ": output_size ", output_size, " must satisfy ", infer,
              " <= output_size[", i, "] < ", infer + stride[i],
              " (the size inferred from Input ", input, ", Filter ", filter,
              ", strides [", g.stride_h, ", ", g.stride_w, "]",
              " and paddings, plus less than one "
              "stride)"));
      out[i] = output_size[i];
    } else if (!output_padding.empty()) {
      const int64_t limit = std::max(stride[i], dilation[i]);
      PADDLE_ENFORCE(
          output_padding[i] >= 0 && output_padding[i] < limit,
          errors::InvalidArgument(type, ": output_padding ", output_padding,
                                  " must satisfy 0 <= output_padding[", i,
                                  "] < max(stride, dilation) = ", limit));
      out[i] = infer + output_padding[i];
    } else {
      out[i] = infer;
    }
  }
  g.out_h = out[0];
  g.out_w = out[1];
  PADDLE_ENFORCE(
      g.out_h > 0 && g.out_w > 0,
      errors::InvalidArgument(
          type, ": output size [", g.out_h, ", ", g.out_w,
          "] is not positive for Input ", input, ", Filter ", filter,
          ", strides [", g.stride_h, ", ", g.stride_w, "], paddings [",
          g.pad.top, ", ", g.pad.bottom, ", ", g.pad.left, ", ", g.pad.right,
          "], dilations [", g.dilation_h, ", ", g.dilation_w,
          "]; the paddings remove more than the transpose produces"));
  return g;
}

}  // namespace operators
}  // namespace paddle_lite
