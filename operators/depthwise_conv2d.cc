// depthwise_conv2d: the same op as conv2d under another type name, saved
// for convolutions with groups == C (spec §2.3); any valid groups is legal.
#include "operators/conv_op.h"

REGISTER_OPERATOR(depthwise_conv2d,
                  paddle_lite::operators::ConvOp,
                  paddle_lite::operators::ConvOpMaker);
