// leaky_relu: Out = X >= 0 ? X : alpha * X.
// 0.02 is the op's default; Python front ends always write their own value
// (0.01 usually, 0.1 in YOLO models).
#include "operators/unary_op.h"

namespace paddle_lite {
namespace operators {

class LeakyReluOpMaker : public UnaryOpMaker {
 protected:
  void MakeAttrs() override {
    AddAttr<float>("alpha", "slope for negative inputs").SetDefault(0.02f);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(leaky_relu,
                  paddle_lite::operators::UnaryOp,
                  paddle_lite::operators::LeakyReluOpMaker);
