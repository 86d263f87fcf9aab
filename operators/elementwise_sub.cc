// elementwise_sub: Out = X - Y, with Paddle's broadcasting.
#include "operators/elementwise_op.h"

REGISTER_OPERATOR(elementwise_sub,
                  paddle_lite::operators::ElementwiseOp,
                  paddle_lite::operators::ElementwiseOpMaker);
