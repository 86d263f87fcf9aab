// sigmoid: Out = 1 / (1 + exp(-X)).
#include "operators/unary_op.h"

namespace paddle_lite {
namespace operators {

class SigmoidOpMaker : public UnaryOpMaker {};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(sigmoid,
                  paddle_lite::operators::UnaryOp,
                  paddle_lite::operators::SigmoidOpMaker);
