#include "kernels/cpu/plain/activation_util.h"

#include "platform/cpu_isa.h"

namespace paddle_lite {
namespace kernels {
namespace plain {
namespace {

enum class Kind { kRelu, kRelu6, kLeakyRelu, kHardSwish, kHardSigmoid };

// The loops, inlined into one function per instruction set below and
// vectorized by the compiler for each (-O3). Formulas as in
// fused_activation.h.
__attribute__((always_inline)) inline void Body(
    Kind kind, float alpha, float beta, float* __restrict data, int64_t n) {
  switch (kind) {
    case Kind::kRelu:
      for (int64_t i = 0; i < n; ++i) data[i] = data[i] > 0.f ? data[i] : 0.f;
      break;
    case Kind::kRelu6:
      for (int64_t i = 0; i < n; ++i) {
        const float v = data[i] > 0.f ? data[i] : 0.f;
        data[i] = v < beta ? v : beta;
      }
      break;
    case Kind::kLeakyRelu:
      for (int64_t i = 0; i < n; ++i) {
        data[i] = data[i] >= 0.f ? data[i] : alpha * data[i];
      }
      break;
    case Kind::kHardSwish:
      for (int64_t i = 0; i < n; ++i) {
        const float x = data[i];
        float v = x + 3.f;
        v = v > 0.f ? v : 0.f;
        v = v < 6.f ? v : 6.f;
        data[i] = x * v / 6.f;
      }
      break;
    case Kind::kHardSigmoid:
      for (int64_t i = 0; i < n; ++i) {
        float v = alpha * data[i] + beta;
        v = v > 1.f ? 1.f : v;  // a NaN stays NaN
        data[i] = v < 0.f ? 0.f : v;
      }
      break;
  }
}

using ActivationFn = void (*)(Kind, float, float, float*, int64_t);

#define PDLITE_ACTIVATION(SUFFIX, TARGET)                            \
  TARGET void Activation##SUFFIX(Kind kind, float alpha, float beta, \
                                 float* data, int64_t n) {           \
    Body(kind, alpha, beta, data, n);                                \
  }

PDLITE_ACTIVATION(Avx512, __attribute__((target("avx512f,fma"))))
PDLITE_ACTIVATION(Avx2, __attribute__((target("avx2,fma"))))
PDLITE_ACTIVATION(Baseline, )

#undef PDLITE_ACTIVATION

ActivationFn PickActivation() {
  switch (platform::WidestCpuIsa()) {
    case platform::CpuIsa::kAvx512:
      return ActivationAvx512;
    case platform::CpuIsa::kAvx2:
      return ActivationAvx2;
    default:
      return ActivationBaseline;
  }
}

const ActivationFn kActivation = PickActivation();

}  // namespace

bool HasFloatActivation(const std::string& type) {
  return type == "relu" || type == "relu6" || type == "leaky_relu" ||
         type == "hard_swish" || type == "hard_sigmoid";
}

bool ApplyFloatActivation(
    const std::string& type, float alpha, float beta, float* data, int64_t n) {
  Kind kind;
  if (type == "relu") {
    kind = Kind::kRelu;
  } else if (type == "relu6") {
    kind = Kind::kRelu6;
  } else if (type == "leaky_relu") {
    kind = Kind::kLeakyRelu;
  } else if (type == "hard_swish") {
    kind = Kind::kHardSwish;
  } else if (type == "hard_sigmoid") {
    kind = Kind::kHardSigmoid;
  } else {
    return false;
  }
  kActivation(kind, alpha, beta, data, n);
  return true;
}

}  // namespace plain
}  // namespace kernels
}  // namespace paddle_lite
