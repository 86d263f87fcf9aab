// Definition shared by fused_elementwise_add and fused_elementwise_mul:
// the element-wise op (ops.md 6.1, same slots, broadcasting and shapes)
// followed by an activation on Out, the ops the
// fuse_elementwise_activation pass creates (Paddle 2.5+ names them so).
#pragma once

#include "operators/elementwise_op.h"
#include "operators/fused_activation.h"

namespace paddle_lite {
namespace operators {

class FusedElementwiseOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "first operand");
    AddInput("Y", "second operand; either operand may have the lower rank");
    AddOutput("Out", "activation(X op Y), broadcast");
    AddAttr<int>("axis",
                 "dim of the higher-rank operand where the lower-rank one "
                 "starts; -1 aligns trailing dims")
        .SetDefault(-1);
    AddAttr<std::string>("fuse_activation", kFuseActivationDoc)
        .SetDefault("")
        .InEnum(FusedActivationNames());
    AddAttr<float>("fuse_alpha", kFuseAlphaDoc).SetDefault(0.0f);
    AddAttr<float>("fuse_beta", kFuseBetaDoc).SetDefault(0.0f);
  }
};

}  // namespace operators
}  // namespace paddle_lite
