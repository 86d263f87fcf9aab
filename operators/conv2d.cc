// conv2d: grouped 2-D cross-correlation (spec §2.2).
#include "operators/conv_op.h"

REGISTER_OPERATOR(conv2d,
                  paddle_lite::operators::ConvOp,
                  paddle_lite::operators::ConvOpMaker);
