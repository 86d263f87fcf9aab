// The fused epilogue kernel (see fused_epilogue_util.h). The activation
// formulas are those of kernels/cpu/plain/fused_activation.h, written with
// the same comparisons so NaNs and ties come out the same way.
#include "kernels/cuda/cuda_helper.h"
#include "kernels/cuda/fused_epilogue_util.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

EpilogueActivation MakeEpilogueActivation(const std::string& type,
                                          float alpha,
                                          float beta) {
  using Kind = EpilogueActivation::Kind;
  EpilogueActivation act;
  act.alpha = alpha;
  act.beta = beta;
  if (type.empty()) {
    act.kind = Kind::kNone;
  } else if (type == "relu") {
    act.kind = Kind::kRelu;
  } else if (type == "relu6") {
    act.kind = Kind::kRelu6;
  } else if (type == "leaky_relu") {
    act.kind = Kind::kLeakyRelu;
  } else if (type == "hard_swish") {
    act.kind = Kind::kHardSwish;
  } else if (type == "sigmoid") {
    act.kind = Kind::kSigmoid;
  } else if (type == "swish") {
    act.kind = Kind::kSwish;
  } else if (type == "hard_sigmoid") {
    act.kind = Kind::kHardSigmoid;
  } else {
    PADDLE_THROW(errors::Unimplemented("Fused activation '", type,
                                       "' has no CUDA kernel."));
  }
  return act;
}

namespace {

__device__ __forceinline__ float Activate(EpilogueActivation act, float x) {
  using Kind = EpilogueActivation::Kind;
  switch (act.kind) {
    case Kind::kNone:
      return x;
    case Kind::kRelu:
      return x > 0.0f ? x : 0.0f;
    case Kind::kRelu6: {
      const float v = x > 0.0f ? x : 0.0f;
      return v < act.beta ? v : act.beta;
    }
    case Kind::kLeakyRelu:
      return x >= 0.0f ? x : act.alpha * x;
    case Kind::kHardSwish: {
      float v = x + 3.0f;
      v = v > 0.0f ? v : 0.0f;
      v = v < 6.0f ? v : 6.0f;
      return x * v / 6.0f;
    }
    case Kind::kSigmoid:
      return 1.0f / (1.0f + expf(-x));
    case Kind::kSwish:
      return x / (1.0f + expf(-act.alpha * x));
    case Kind::kHardSigmoid: {
      float v = act.alpha * x + act.beta;
      v = v < 1.0f ? v : 1.0f;
      return v > 0.0f ? v : 0.0f;
    }
  }
  return x;
}

__global__ void FusedEpilogueKernel(FusedEpilogue e,
                                    const float* in,
                                    float* out,
                                    int64_t n) {
  PDLITE_CUDA_KERNEL_LOOP(i, n) {
    float v = in[i];
    if (e.bias != nullptr) v += e.bias[(i / e.inner) % e.channels];
    if (e.residual != nullptr) v += e.residual[i];
    out[i] = Activate(e.act, v);
  }
}

}  // namespace

void LaunchFusedEpilogue(cudaStream_t stream,
                         const FusedEpilogue& epilogue,
                         const float* in,
                         float* out,
                         int64_t n) {
  if (n <= 0) return;
  if (in == out && epilogue.IsIdentity()) return;
  FusedEpilogue e = epilogue;
  if (e.inner <= 0) e.inner = 1;
  if (e.channels <= 0) e.channels = 1;
  FusedEpilogueKernel<<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(e, in, out,
                                                                     n);
  PDLITE_CUDA_LAUNCH_CHECK();
}

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite
