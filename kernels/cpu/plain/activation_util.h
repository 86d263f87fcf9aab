// The float activations fused into plain kernels' outputs (relu, relu6,
// leaky_relu, hard_swish, hard_sigmoid), compiled for AVX-512, AVX2 and the
// baseline and run the widest the CPU has (platform/cpu_isa.h). Private to
// kernels/cpu/plain (fused_activation.h).
#pragma once

#include <cstdint>
#include <string>

namespace paddle_lite {
namespace kernels {
namespace plain {

/// Whether `type` is one of the activations above.
bool HasFloatActivation(const std::string& type);

/// data[i] = act(data[i]) for i < n on the calling thread, for `type` one
/// of the activations above (formulas of fused_activation.h); false, with
/// nothing done, for any other type.
bool ApplyFloatActivation(
    const std::string& type, float alpha, float beta, float* data, int64_t n);

}  // namespace plain
}  // namespace kernels
}  // namespace paddle_lite
