// conv2d_transpose: the adjoint of a grouped 2-D convolution (spec §2.4),
// then the activation of Paddle's fuse_activation attributes (set by
// oneDNN-optimized Paddle programs and by our fuse_conv_activation pass).
#include "framework/op_registry.h"
#include "operators/conv_transpose_shape.h"
#include "operators/fused_activation.h"

namespace paddle_lite {
namespace operators {

class Conv2DTransposeOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const auto input = ctx->GetInputDim("Input");
    const auto filter = ctx->GetInputDim("Filter");
    Conv2DGeometry g = ResolveConv2DTranspose(ctx->op(), input, filter);
    if (ctx->HasInput("Bias")) {
      const auto bias = ctx->GetInputDim("Bias");
      PADDLE_ENFORCE_EQ(
          framework::Product(bias), g.out_channels,
          errors::InvalidArgument(Type(), ": Bias dims ", bias,
                                  " must hold one value per output channel (",
                                  g.out_channels, " for Filter ", filter,
                                  " and groups ", g.groups, ")"));
    }
    ctx->SetOutputDim("Output", g.OutputDims());
    ctx->ShareLoD("Input", "Output");
  }
};

class Conv2DTransposeOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "activations [N, Cin, H, W] (or [N, H, W, Cin])");
    AddInput("Filter",
             "weights [Cin, Cout / groups, KH, KW], input channels first");
    AddInput("Bias", "optional per-output-channel bias [Cout] (fused graphs)")
        .AsDispensable();
    AddOutput("Output", "[N, Cout, OH, OW] (or [N, OH, OW, Cout] for NHWC)");
    AddAttr<std::vector<int32_t>>("strides", "[stride_h, stride_w]")
        .SetDefault({1, 1});
    AddAttr<std::vector<int32_t>>(
        "paddings", "[pad_h, pad_w] or [top, bottom, left, right]")
        .SetDefault({0, 0});
    AddAttr<std::string>("padding_algorithm",
                         "EXPLICIT uses paddings; SAME and VALID compute them "
                         "from the transpose's input size")
        .SetDefault("EXPLICIT")
        .InEnum({"EXPLICIT", "SAME", "VALID"});
    AddAttr<std::vector<int32_t>>(
        "output_padding",
        "extra rows/columns at the end, < max(stride, "
        "dilation)")
        .SetDefault({});
    AddAttr<std::vector<int32_t>>(
        "output_size",
        "[out_h, out_w]; picks one of the `stride` sizes "
        "that convolve back to Input's size")
        .SetDefault({});
    AddAttr<int32_t>("groups", "channel groups; Cin divisible by it")
        .SetDefault(1);
    AddAttr<std::vector<int32_t>>("dilations", "[dilation_h, dilation_w]")
        .SetDefault({1, 1});
    AddAttr<std::string>("data_format",
                         "activation layout; AnyLayout (1.x) means NCHW")
        .SetDefault("NCHW")
        .InEnum({"NCHW", "NHWC", "AnyLayout"});
    AddAttr<std::string>("fuse_activation", kFuseActivationDoc)
        .SetDefault("")
        .InEnum(FusedActivationNames());
    AddAttr<float>("fuse_alpha", kFuseAlphaDoc).SetDefault(0.0f);
    AddAttr<float>("fuse_beta", kFuseBetaDoc).SetDefault(0.0f);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(conv2d_transpose,
                  paddle_lite::operators::Conv2DTransposeOp,
                  paddle_lite::operators::Conv2DTransposeOpMaker);
