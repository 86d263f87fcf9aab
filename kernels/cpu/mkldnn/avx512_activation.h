// The fused activations our own AVX-512 convolution loops apply before
// their stores (pointwise_conv_util.cc, depthwise_conv_util.cc). Private
// to kernels/cpu/mkldnn; include it from .cc files only (it brings
// <immintrin.h>).
#pragma once

#include <immintrin.h>

#include <string>
#include <type_traits>

#include "operators/fused_activation.h"

#define PDLITE_AVX512 __attribute__((target("avx512f,fma")))

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace avx512 {

enum class Act { kNone, kRelu, kRelu6, kLeakyRelu, kHardSwish, kHardSigmoid };

/// The loops' form of `activation` ("" is kNone); false for the ones they
/// leave to oneDNN (sigmoid, swish, ...).
inline bool ActOf(const operators::FusedActivation& activation, Act* act) {
  const std::string& type = activation.type;
  if (type.empty()) {
    *act = Act::kNone;
  } else if (type == "relu") {
    *act = Act::kRelu;
  } else if (type == "relu6") {
    *act = Act::kRelu6;
  } else if (type == "leaky_relu") {
    *act = Act::kLeakyRelu;
  } else if (type == "hard_swish") {
    *act = Act::kHardSwish;
  } else if (type == "hard_sigmoid") {
    *act = Act::kHardSigmoid;
  } else {
    return false;
  }
  return true;
}

/// fn(std::integral_constant<Act, act>()): turns a run-time activation
/// into a template argument, fn's loops instantiated for each.
template <typename Fn>
auto WithAct(Act act, const Fn& fn) {
  switch (act) {
    case Act::kRelu:
      return fn(std::integral_constant<Act, Act::kRelu>());
    case Act::kRelu6:
      return fn(std::integral_constant<Act, Act::kRelu6>());
    case Act::kLeakyRelu:
      return fn(std::integral_constant<Act, Act::kLeakyRelu>());
    case Act::kHardSwish:
      return fn(std::integral_constant<Act, Act::kHardSwish>());
    case Act::kHardSigmoid:
      return fn(std::integral_constant<Act, Act::kHardSigmoid>());
    case Act::kNone:
      break;
  }
  return fn(std::integral_constant<Act, Act::kNone>());
}

// min and max through their zero-masking forms: GCC 12's plain forms
// start from an undefined vector and warn (-Wmaybe-uninitialized).
PDLITE_AVX512 inline __m512 Max(__m512 a, __m512 b) {
  return _mm512_maskz_max_ps(__mmask16(0xFFFF), a, b);
}
PDLITE_AVX512 inline __m512 Min(__m512 a, __m512 b) {
  return _mm512_maskz_min_ps(__mmask16(0xFFFF), a, b);
}

/// kAct on 16 lanes; alpha and beta as FusedActivation holds them.
template <Act kAct>
PDLITE_AVX512 inline __m512 Activate(__m512 x, float alpha, float beta) {
  const __m512 zero = _mm512_setzero_ps();
  switch (kAct) {
    case Act::kNone:
      return x;
    case Act::kRelu:
      return Max(x, zero);
    case Act::kRelu6:
      return Min(Max(x, zero), _mm512_set1_ps(beta));
    case Act::kLeakyRelu: {
      const __mmask16 negative = _mm512_cmp_ps_mask(x, zero, _CMP_LT_OQ);
      return _mm512_mask_mul_ps(x, negative, x, _mm512_set1_ps(alpha));
    }
    case Act::kHardSwish: {
      // x * v / 6, rounded as the division would be: a multiply by 1/6
      // alone is off by an ulp at times (enough to put
      // picodet_lcnet_x1_0_layout outside its reference tolerance), and a
      // division costs as much as a 3x3 window's multiply-adds. One
      // correction step (q + (xv - 6q) / 6) gives the division's result
      // for every |xv| in [1e-30, 1e30] (checked over a 16th of all
      // floats).
      __m512 v = _mm512_add_ps(x, _mm512_set1_ps(3.f));
      v = Min(Max(v, zero), _mm512_set1_ps(6.f));
      const __m512 xv = _mm512_mul_ps(x, v);
      const __m512 sixth = _mm512_set1_ps(1.f / 6.f);
      const __m512 q = _mm512_mul_ps(xv, sixth);
      const __m512 r = _mm512_fnmadd_ps(q, _mm512_set1_ps(6.f), xv);
      return _mm512_fmadd_ps(r, sixth, q);
    }
    case Act::kHardSigmoid: {
      const __m512 v =
          _mm512_fmadd_ps(x, _mm512_set1_ps(alpha), _mm512_set1_ps(beta));
      return Min(Max(v, zero), _mm512_set1_ps(1.f));
    }
  }
  return x;
}

}  // namespace avx512
}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
