// elementwise_div: Out = X / Y with Paddle's broadcasting. Integer division
// truncates toward zero and fails on a zero divisor; floats follow IEEE.
#include "operators/elementwise_op.h"

REGISTER_OPERATOR(elementwise_div,
                  paddle_lite::operators::ElementwiseOp,
                  paddle_lite::operators::ElementwiseOpMaker);
