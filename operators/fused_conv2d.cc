// fused_conv2d: a conv2d or depthwise_conv2d (same slots, attributes and
// shapes, spec §2.2) plus, when bound, ResidualData of the output's dims,
// then an activation: Output = act(conv + Bias + ResidualData). The
// fuse_conv_residual and fuse_conv_activation passes create it. Paddle's
// op of this name also fuses quantization (oneDNN only), which is not
// supported.
#include "operators/conv_op.h"

REGISTER_OPERATOR(fused_conv2d,
                  paddle_lite::operators::ConvOp,
                  paddle_lite::operators::FusedConvOpMaker);
