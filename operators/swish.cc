// swish: Out = X * sigmoid(beta * X).
// PHI kernels (Paddle >= 2.4) ignore `beta` and always use 1; saved models
// hold 1 anyway, and older releases honoured it, so we honour it.
#include "operators/unary_op.h"

namespace paddle_lite {
namespace operators {

class SwishOpMaker : public UnaryOpMaker {
 protected:
  void MakeAttrs() override {
    AddAttr<float>("beta", "scale of X inside the sigmoid").SetDefault(1.0f);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(swish,
                  paddle_lite::operators::UnaryOp,
                  paddle_lite::operators::SwishOpMaker);
