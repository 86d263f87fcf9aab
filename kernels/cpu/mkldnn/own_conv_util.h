// When the MKLDNN conv kernels may run a convolution on our own AVX-512 or
// AVX2 loops (1x1: pointwise_conv_util.h; depthwise: depthwise_conv_util.h; a
// stem of few input channels: stem_conv_util.h) instead of a oneDNN
// primitive, which makes code for every input size.
// Private to kernels/cpu/mkldnn (conv_kernel.h, pool2d.cc).
#pragma once

#include "operators/fused_activation.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

/// True when the CPU (under DNNL_MAX_CPU_ISA) runs the loops: AVX-512, or
/// AVX2 with FMA.
bool OwnConvLoopsAvailable();

/// True for the activations the loops fuse ("" too); swish, tanh and the
/// rest are left to oneDNN.
bool OwnConvLoopsFuse(const operators::FusedActivation& activation);

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
