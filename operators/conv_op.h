// The op class and Maker shared by the 2-D convolution op types conv2d and
// depthwise_conv2d (spec §2.2, §2.3): same slots, attributes and math.
// Each op type registers itself in its own file.
#pragma once

#include "framework/op_registry.h"
#include "operators/conv_pool_shape.h"
#include "operators/fused_activation.h"

namespace paddle_lite {
namespace operators {

/// Grouped 2-D cross-correlation: checks Input/Filter/Bias against the
/// attributes and sizes Output ([N, M, OH, OW], or NHWC).
class ConvOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    // References: the output is set last, from `g`.
    const auto& input = ctx->GetInputDim("Input");
    const auto& filter = ctx->GetInputDim("Filter");
    Conv2DGeometry g = ResolveConv2D(ctx->op(), input, filter);
    if (ctx->HasInput("Bias")) {
      const auto& bias = ctx->GetInputDim("Bias");
      PADDLE_ENFORCE_EQ(
          framework::Product(bias), g.out_channels,
          errors::InvalidArgument(Type(), ": Bias dims ", bias,
                                  " must hold one value per output channel "
                                  "(Filter dims ",
                                  filter, ")"));
    }
    if (ctx->HasInput("ResidualData")) CheckResidual(ctx, g);
    ctx->SetOutputDim("Output", g.OutputDims());
    ctx->ShareLoD("Input", "Output");
  }

 protected:
  /// Checks the bound ResidualData against the geometry. Only fused_conv2d
  /// adds a residual of the output's dims (the fuse_conv_residual pass
  /// makes it); saved conv2d ops leave this slot empty.
  virtual void CheckResidual(framework::InferShapeContext* ctx,
                             const Conv2DGeometry& g) const {
    PADDLE_ENFORCE(Type() == "fused_conv2d",
                   errors::Unimplemented(
                       Type(),
                       ": the ResidualData input (residual fusion) is "
                       "only supported by fused_conv2d; add the residual "
                       "with elementwise_add instead"));
    const auto residual = ctx->GetInputDim("ResidualData");
    PADDLE_ENFORCE(residual == g.OutputDims(),
                   errors::InvalidArgument(
                       Type(), ": ResidualData dims ", residual,
                       " must equal the output dims ", g.OutputDims(),
                       "; a program whose add broadcasts shapes known only "
                       "at run time runs unfused without graph passes "
                       "(--ir_optim=false, Config::SwitchIrOptim(false))"));
  }
};

class ConvOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "activations [N, C, H, W] (or [N, H, W, C] for NHWC)");
    AddInput("Filter",
             "weights [M, C / groups, KH, KW], OIHW whatever data_format is");
    AddInput("Bias", "optional per-output-channel bias [M] (fused graphs)")
        .AsDispensable();
    AddInput("ResidualData", ResidualDataDoc()).AsDispensable();
    AddOutput("Output", "[N, M, OH, OW] (or [N, OH, OW, M] for NHWC)");
    AddConvAttrs();
  }

 protected:
  virtual const char* ResidualDataDoc() const {
    return "fused_conv2d only: added to the output (same dims) before the "
           "activation";
  }

  /// The window and layout attributes every convolution op has.
  void AddConvAttrs() {
    AddAttr<std::vector<int32_t>>("strides", "[stride_h, stride_w]")
        .SetDefault({1, 1});
    AddAttr<std::vector<int32_t>>(
        "paddings", "[pad_h, pad_w] or [top, bottom, left, right]")
        .SetDefault({0, 0});
    AddAttr<std::string>("padding_algorithm",
                         "EXPLICIT uses paddings; SAME and VALID compute them")
        .SetDefault("EXPLICIT")
        .InEnum({"EXPLICIT", "SAME", "VALID"});
    AddAttr<int32_t>("groups", "channel groups; C and M divisible by it")
        .SetDefault(1);
    AddAttr<std::vector<int32_t>>("dilations", "[dilation_h, dilation_w]")
        .SetDefault({1, 1});
    AddAttr<std::string>("data_format",
                         "activation layout; AnyLayout (1.x) means NCHW")
        .SetDefault("NCHW")
        .InEnum({"NCHW", "NHWC", "AnyLayout"});
  }
};

/// fused_conv2d's: conv2d's, and the activation applied last.
class FusedConvOpMaker : public ConvOpMaker {
 public:
  void Make() override {
    ConvOpMaker::Make();
    AddActivationAttrs();
  }

 protected:
  void AddActivationAttrs() {
    AddAttr<std::string>("fuse_activation", kFuseActivationDoc)
        .SetDefault("")
        .InEnum(FusedActivationNames());
    AddAttr<float>("fuse_alpha", kFuseAlphaDoc).SetDefault(0.0f);
    AddAttr<float>("fuse_beta", kFuseBetaDoc).SetDefault(0.0f);
  }
};

}  // namespace operators
}  // namespace paddle_lite
