// dropout at inference: Out = X * (1 - dropout_prob) for
// "downgrade_in_infer", Out = X for "upscale_in_train".
#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

class DropoutOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  void InferShape(framework::InferShapeContext* ctx) const override {
    // Mask is training-only and left unallocated.
    ctx->SetOutputDim("Out", ctx->GetInputDim("X"));
    ctx->ShareLoD("X", "Out");
  }
};

class DropoutOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "input tensor");
    AddInput("Seed", "random seed tensor (training only)").AsDispensable();
    AddOutput("Out", "X scaled for inference");
    AddOutput("Mask", "dropped positions (training only)").AsExtra();
    AddAttr<float>("dropout_prob", "probability of dropping a unit")
        .SetDefault(0.5f)
        .AddCustomChecker([](const float& p) {
          PADDLE_ENFORCE(
              p >= 0.0f && p <= 1.0f,
              errors::InvalidArgument("dropout_prob must be in [0, 1], but is ",
                                      p, "."));
        });
    // Always run as inference: Paddle Inference sets is_test on every op
    // too (is_test_pass), and a random mask has no place in a predictor.
    AddAttr<bool>("is_test", "inference mode (assumed)").SetDefault(false);
    AddAttr<bool>("fix_seed", "use `seed` (training only)").SetDefault(false);
    AddAttr<int>("seed", "random seed (training only)").SetDefault(0);
    AddAttr<std::string>("dropout_implementation",
                         "how scaling is split between training and "
                         "inference")
        .SetDefault("downgrade_in_infer")
        .InEnum({"downgrade_in_infer", "upscale_in_train"});
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(dropout,
                  paddle_lite::operators::DropoutOp,
                  paddle_lite::operators::DropoutOpMaker);
