// fused_conv2d: a conv2d or depthwise_conv2d (same slots, attributes and
// shapes, spec §2.2) whose output then goes through an activation, the op
// the fuse_conv_activation pass creates. Paddle's op of this name also
// fuses residual additions and quantization (oneDNN only); a bound
// ResidualData is rejected as for conv2d.
#include "operators/conv_op.h"
#include "operators/fused_activation.h"

namespace paddle_lite {
namespace operators {

class FusedConvOpMaker : public ConvOpMaker {
 public:
  void Make() override {
    ConvOpMaker::Make();
    AddAttr<std::string>("fuse_activation", kFuseActivationDoc)
        .SetDefault("")
        .InEnum(FusedActivationNames());
    AddAttr<float>("fuse_alpha", kFuseAlphaDoc).SetDefault(0.0f);
    AddAttr<float>("fuse_beta", kFuseBetaDoc).SetDefault(0.0f);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(fused_conv2d,
                  paddle_lite::operators::ConvOp,
                  paddle_lite::operators::FusedConvOpMaker);
