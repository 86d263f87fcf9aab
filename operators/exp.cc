// exp: Out = e^X.
#include "operators/unary_op.h"

namespace paddle_lite {
namespace operators {

class ExpOpMaker : public UnaryOpMaker {};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(exp,
                  paddle_lite::operators::UnaryOp,
                  paddle_lite::operators::ExpOpMaker);
