// fused_elementwise_mul: Out = activation(X * Y), with Paddle's
// broadcasting (see operators/fused_elementwise_op.h).
#include "operators/fused_elementwise_op.h"

REGISTER_OPERATOR(fused_elementwise_mul,
                  paddle_lite::operators::ElementwiseOp,
                  paddle_lite::operators::FusedElementwiseOpMaker);
