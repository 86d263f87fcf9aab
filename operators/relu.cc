// relu: Out = max(X, 0).
#include "operators/unary_op.h"

namespace paddle_lite {
namespace operators {

class ReluOpMaker : public UnaryOpMaker {};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(relu,
                  paddle_lite::operators::UnaryOp,
                  paddle_lite::operators::ReluOpMaker);
