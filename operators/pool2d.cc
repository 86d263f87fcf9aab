// pool2d: max or average pooling over 2-D windows, with global, adaptive
// and ceil-mode variants (spec §3).
#include "framework/op_registry.h"
#include "operators/conv_pool_shape.h"

namespace paddle_lite {
namespace operators {

class Pool2dOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    Pool2DGeometry g = ResolvePool2D(ctx->op(), ctx->GetInputDim("X"));
    ctx->SetOutputDim("Out", g.OutputDims());
    ctx->ShareLoD("X", "Out");
  }
};

class Pool2dOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "activations [N, C, H, W] (or [N, H, W, C] for NHWC)");
    AddOutput("Out", "pooled activations, same layout as X");
    AddAttr<std::string>("pooling_type", "max or avg").InEnum({"max", "avg"});
    AddAttr<std::vector<int32_t>>(
        "ksize",
        "window [kh, kw]; the output size with adaptive; ignored with "
        "global_pooling");
    AddAttr<bool>("global_pooling", "pool the whole H x W plane")
        .SetDefault(false);
    AddAttr<std::vector<int32_t>>("strides", "[stride_h, stride_w]")
        .SetDefault({1, 1});
    AddAttr<std::vector<int32_t>>(
        "paddings", "[pad_h, pad_w] or [top, bottom, left, right]")
        .SetDefault({0, 0});
    AddAttr<bool>("exclusive",
                  "avg: divide by the count of non-padding elements")
        .SetDefault(true);
    AddAttr<bool>("adaptive", "ksize is the output size").SetDefault(false);
    AddAttr<bool>("ceil_mode", "round the output size up").SetDefault(false);
    AddAttr<std::string>("data_format",
                         "activation layout; AnyLayout (1.x) means NCHW")
        .SetDefault("NCHW")
        .InEnum({"NCHW", "NHWC", "AnyLayout"});
    AddAttr<std::string>("padding_algorithm",
                         "EXPLICIT uses paddings; SAME and VALID compute them")
        .SetDefault("EXPLICIT")
        .InEnum({"EXPLICIT", "SAME", "VALID"});
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(pool2d,
                  paddle_lite::operators::Pool2dOp,
                  paddle_lite::operators::Pool2dOpMaker);
