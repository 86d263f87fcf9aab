// hard_swish: Out = X * min(max(X + offset, 0), threshold) / scale.
// PHI kernels (Paddle >= 2.4) ignore the attributes and always use 6/6/3;
// saved models hold those values anyway, and older releases honoured them,
// so we honour them.
#include "operators/unary_op.h"

namespace paddle_lite {
namespace operators {

class HardSwishOpMaker : public UnaryOpMaker {
 protected:
  void MakeAttrs() override {
    AddAttr<float>("threshold", "upper clip of X + offset").SetDefault(6.0f);
    AddAttr<float>("scale", "divisor").SetDefault(6.0f);
    AddAttr<float>("offset", "shift added to X before clipping")
        .SetDefault(3.0f);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(hard_swish,
                  paddle_lite::operators::UnaryOp,
                  paddle_lite::operators::HardSwishOpMaker);
