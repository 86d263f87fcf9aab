// tanh: Out = tanh(X).
#include "operators/unary_op.h"

namespace paddle_lite {
namespace operators {

class TanhOpMaker : public UnaryOpMaker {};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(tanh,
                  paddle_lite::operators::UnaryOp,
                  paddle_lite::operators::TanhOpMaker);
