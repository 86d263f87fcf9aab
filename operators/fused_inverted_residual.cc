// fused_inverted_residual: MobileNet v2/v3's inverted residual block without
// squeeze-excitation, as three convolutions in a row (NCHW):
//   expanded = act(conv1x1(Input, Filter) + Bias)
//   filtered = act2(depthwise(expanded, DepthwiseFilter) + DepthwiseBias)
//   Output = act3(conv1x1(filtered, ProjectFilter) + ProjectBias
//                 + ResidualData)
// with the depthwise convolution's window in the conv attributes (strides,
// paddings, padding_algorithm, dilations; groups is the expanded channels)
// and the activations in the fuse_activation* attributes. The
// fuse_inverted_residual pass makes it from fused_conv2d / conv2d ops, so
// that the expanded and filtered maps (the block's largest, several times
// its input) are never stored: the kernels keep a few rows of each.
#include <string>
#include <utility>

#include "framework/op_registry.h"
#include "operators/fused_activation.h"
#include "operators/inverted_residual_shape.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace operators {
namespace {

// A 1x1 convolution (stride 1, no padding) of `in` [N, C, H, W] by
// `filter` [M, C, 1, 1] (`which` names the filter in errors).
Conv2DGeometry PointwiseOf(const std::string& op,
                           const char* which,
                           const framework::DDim& in,
                           const framework::DDim& filter) {
  PADDLE_ENFORCE(
      filter.size() == 4 && filter[1] == in[1] && filter[0] > 0 &&
          filter[2] == 1 && filter[3] == 1,
      errors::InvalidArgument(op, ": ", which, " must be 4-D [M, ", in[1],
                              ", 1, 1] with M positive for its input ", in,
                              ", got ", filter));
  Conv2DGeometry g;
  g.batch = in[0];
  g.in_channels = in[1];
  g.in_h = g.out_h = in[2];
  g.in_w = g.out_w = in[3];
  g.out_channels = filter[0];
  g.kernel_h = g.kernel_w = 1;
  return g;
}

}  // namespace

InvertedResidualGeometry ResolveInvertedResidual(
    const framework::OperatorBase& op,
    const framework::DDim& input,
    const framework::DDim& filter,
    const framework::DDim& depthwise_filter,
    const framework::DDim& project_filter) {
  const std::string& type = op.Type();
  PADDLE_ENFORCE(input.size() == 4,
                 errors::InvalidArgument(
                     type, ": Input must be 4-D [N, C, H, W], got ", input));
  PADDLE_ENFORCE(!ConvAttrsOf(op).channel_last,
                 errors::InvalidArgument(
                     type, ": data_format must be NCHW (or AnyLayout)"));
  InvertedResidualGeometry g;
  g.expand = PointwiseOf(type, "Filter", input, filter);
  const int64_t expanded = g.expand.out_channels;
  PADDLE_ENFORCE(
      depthwise_filter.size() == 4 && depthwise_filter[0] == expanded &&
          depthwise_filter[1] == 1 && ConvAttrsOf(op).groups == expanded,
      errors::InvalidArgument(type, ": DepthwiseFilter must be 4-D [", expanded,
                              ", 1, KH, KW] with groups ", expanded,
                              " (Filter ", filter, "), got ", depthwise_filter,
                              " with groups ", ConvAttrsOf(op).groups));
  g.depthwise = ResolveConv2D(op, g.expand.OutputDims(), depthwise_filter);
  g.project = PointwiseOf(type, "ProjectFilter", g.depthwise.OutputDims(),
                          project_filter);
  return g;
}

class FusedInvertedResidualOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const InvertedResidualGeometry g = ResolveInvertedResidual(
        ctx->op(), ctx->GetInputDim("Input"), ctx->GetInputDim("Filter"),
        ctx->GetInputDim("DepthwiseFilter"), ctx->GetInputDim("ProjectFilter"));
    for (const auto& [slot, channels] :
         {std::pair<const char*, int64_t>{"Bias", g.expand.out_channels},
          {"DepthwiseBias", g.depthwise.out_channels},
          {"ProjectBias", g.project.out_channels}}) {
      if (!ctx->HasInput(slot)) continue;
      const framework::DDim bias = ctx->GetInputDim(slot);
      PADDLE_ENFORCE_EQ(
          framework::Product(bias), channels,
          errors::InvalidArgument(Type(), ": ", slot, " dims ", bias,
                                  " must hold one value per channel (",
                                  channels, ")"));
    }
    const framework::DDim out = g.project.OutputDims();
    if (ctx->HasInput("ResidualData")) {
      const framework::DDim residual = ctx->GetInputDim("ResidualData");
      PADDLE_ENFORCE(
          residual == out,
          errors::InvalidArgument(Type(), ": ResidualData dims ", residual,
                                  " must equal the output dims ", out));
    }
    ctx->SetOutputDim("Output", out);
    ctx->ShareLoD("Input", "Output");
  }
};

class FusedInvertedResidualOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "activations [N, C, H, W]");
    AddInput("Filter", "the expanding 1x1 convolution's [E, C, 1, 1]");
    AddInput("Bias", "its bias [E]").AsDispensable();
    AddInput("DepthwiseFilter", "the depthwise convolution's [E, 1, KH, KW]");
    AddInput("DepthwiseBias", "its bias [E]").AsDispensable();
    AddInput("ProjectFilter", "the projecting 1x1 convolution's [M, E, 1, 1]");
    AddInput("ProjectBias", "its bias [M]").AsDispensable();
    AddInput("ResidualData",
             "added to the projection (Output's dims) before act3")
        .AsDispensable();
    AddOutput("Output", "[N, M, OH, OW]");
    AddAttr<std::vector<int32_t>>("strides",
                                  "the depthwise [stride_h, stride_w]")
        .SetDefault({1, 1});
    AddAttr<std::vector<int32_t>>(
        "paddings", "its [pad_h, pad_w] or [top, bottom, left, right]")
        .SetDefault({0, 0});
    AddAttr<std::string>("padding_algorithm",
                         "EXPLICIT uses paddings; SAME and VALID compute them")
        .SetDefault("EXPLICIT")
        .InEnum({"EXPLICIT", "SAME", "VALID"});
    AddAttr<int32_t>("groups", "the expanded channels E").SetDefault(1);
    AddAttr<std::vector<int32_t>>("dilations", "its [dilation_h, dilation_w]")
        .SetDefault({1, 1});
    AddAttr<std::string>("data_format", "NCHW (AnyLayout means NCHW)")
        .SetDefault("NCHW")
        .InEnum({"NCHW", "NHWC", "AnyLayout"});
    AddAttr<std::string>("fuse_activation", "the expansion's activation")
        .SetDefault("")
        .InEnum(FusedActivationNames());
    AddAttr<float>("fuse_alpha", kFuseAlphaDoc).SetDefault(0.0f);
    AddAttr<float>("fuse_beta", kFuseBetaDoc).SetDefault(0.0f);
    AddAttr<std::string>("fuse_activation2", "the depthwise one's")
        .SetDefault("")
        .InEnum(FusedActivationNames());
    AddAttr<float>("fuse_alpha2", kFuseAlphaDoc).SetDefault(0.0f);
    AddAttr<float>("fuse_beta2", kFuseBetaDoc).SetDefault(0.0f);
    AddAttr<std::string>("fuse_activation3", "the projection's")
        .SetDefault("")
        .InEnum(FusedActivationNames());
    AddAttr<float>("fuse_alpha3", kFuseAlphaDoc).SetDefault(0.0f);
    AddAttr<float>("fuse_beta3", kFuseBetaDoc).SetDefault(0.0f);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(fused_inverted_residual,
                  paddle_lite::operators::FusedInvertedResidualOp,
                  paddle_lite::operators::FusedInvertedResidualOpMaker);
