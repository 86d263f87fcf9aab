// hard_sigmoid: Out = max(0, min(1, slope * X + offset)).
// paddle.nn.Hardsigmoid writes slope = 1/6 explicitly; the op default is 0.2.
#include "operators/unary_op.h"

namespace paddle_lite {
namespace operators {

class HardSigmoidOpMaker : public UnaryOpMaker {
 protected:
  void MakeAttrs() override {
    AddAttr<float>("slope", "slope of the linear part").SetDefault(0.2f);
    AddAttr<float>("offset", "value at X = 0").SetDefault(0.5f);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(hard_sigmoid,
                  paddle_lite::operators::UnaryOp,
                  paddle_lite::operators::HardSigmoidOpMaker);
