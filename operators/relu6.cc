// relu6: Out = min(max(X, 0), threshold).
// PHI kernels (Paddle >= 2.4) ignore `threshold` and always use 6; saved
// models hold 6 anyway, and older releases honoured it, so we honour it.
#include "operators/unary_op.h"

namespace paddle_lite {
namespace operators {

class Relu6OpMaker : public UnaryOpMaker {
 protected:
  void MakeAttrs() override {
    AddAttr<float>("threshold", "upper clip value").SetDefault(6.0f);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(relu6,
                  paddle_lite::operators::UnaryOp,
                  paddle_lite::operators::Relu6OpMaker);
