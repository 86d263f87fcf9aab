// The element-wise tail of fused CUDA kernels (fused_conv2d, fc,
// conv2d_transpose, plain conv2d with a Bias): one pass that adds a
// per-channel bias, then a residual, then applies the activation, in that
// order, as the CPU kernels do it. Host declarations only; the kernel is in
// fused_epilogue_util.cu. Private to the CUDA place.
#pragma once

#include <cstdint>
#include <string>

#include "platform/cuda/cuda_error.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

/// An activation of operators/fused_activation.h, resolved once on the
/// host so the device code switches on an enum, not a string.
struct EpilogueActivation {
  enum class Kind {
    kNone,
    kRelu,
    kRelu6,
    kLeakyRelu,
    kHardSwish,
    kSigmoid,
    kSwish,
    kHardSigmoid,
  };
  Kind kind = Kind::kNone;
  float alpha = 0.0f;  // leaky_relu: alpha; swish: beta; hard_sigmoid: slope
  float beta = 0.0f;   // relu6: threshold; hard_sigmoid: offset
};

/// Resolves a fuse_activation name ("" for none) and its fuse_alpha /
/// fuse_beta. Throws Unimplemented for a name the op definitions do not
/// allow (an internal error: the attribute is checked there).
EpilogueActivation MakeEpilogueActivation(const std::string& type,
                                          float alpha,
                                          float beta);

/// What the epilogue does to element i of a tensor of n elements:
///   out[i] = act(in[i] + bias[(i / inner) % channels] + residual[i])
/// with the bias and residual terms only when the pointers are set. NCHW
/// activations have inner = H * W; channel-last ones and matrix rows have
/// inner = 1. All pointers are device pointers.
struct FusedEpilogue {
  const float* bias = nullptr;
  int64_t channels = 1;
  int64_t inner = 1;
  const float* residual = nullptr;
  EpilogueActivation act;

  /// True when the epilogue changes nothing (no bias, residual or
  /// activation), so an in-place run can be skipped.
  bool IsIdentity() const {
    return bias == nullptr && residual == nullptr &&
           act.kind == EpilogueActivation::Kind::kNone;
  }
};

/// Queues the epilogue on `stream`; `in` may equal `out`. Launches nothing
/// when n is 0, or when in == out and the epilogue is the identity.
void LaunchFusedEpilogue(cudaStream_t stream,
                         const FusedEpilogue& epilogue,
                         const float* in,
                         float* out,
                         int64_t n);

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite
