// What our own convolution and pooling loops (pointwise_conv_util.cc,
// depthwise_conv_util.cc, stem_conv_util.cc, winograd_conv_util.cc,
// pool2d.cc) compute with: a
// CPU's native vector of floats (kLanes: 16 on AVX-512, 8 on AVX2) and
// the fused activations, once per instruction set (namespaces avx512 and
// avx2, each function compiled for its set by a target attribute, so the
// default build stays baseline x86-64). The loops are written once against
// these names in a *_loops-inl.h file that their .cc file includes once
// per set, inside that set's namespace (platform/cpu_isa.h picks the set
// at run time). The packed filters are the same for both: channels padded
// to 16, a whole number of vectors on either. Private to
// kernels/cpu/mkldnn; include it from .cc files only (it brings
// <immintrin.h>).
#pragma once

// GCC 12.1 and 12.2's AVX-512 intrinsics pass a self-initialized vector
// (_mm512_undefined_*) as the unused source of their masked builtins, which
// -W(maybe-)uninitialized reports wherever our loops inline them, 120
// lines for one file (GCC bug 105593, fixed in 12.3; Debian 12 has 12.2).
// Silenced for <immintrin.h>'s own locations, on those versions only (and
// only where this header is the first to include it, as in every file
// that includes it now): a use of our own uninitialized vector is still
// reported at our line, though one that GCC finds only after inlining an
// intrinsic may not be.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12 && \
    __GNUC_MINOR__ < 3
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "operators/fused_activation.h"

#define PDLITE_AVX512 __attribute__((target("avx512f,fma")))
#define PDLITE_AVX2 __attribute__((target("avx2,fma")))

// Unrolls the loop that follows n times (`#pragma GCC unroll`, which clang
// reads too), so that a tile's accumulators live in registers. Sanitizer
// trees (PDLITE_SANITIZER_BUILD) keep the loops rolled: the same
// arithmetic, but unrolled and instrumented, one of these files took
// clang 3 to 5 minutes under ASan+UBSan, and those trees check, not time.
#define PDLITE_PRAGMA_TEXT_(text) _Pragma(#text)
#ifdef PDLITE_SANITIZER_BUILD
#define PDLITE_UNROLL(n)
#else
#define PDLITE_UNROLL(n) PDLITE_PRAGMA_TEXT_(GCC unroll n)
#endif

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace own_loops {

enum class Act {
  kNone,
  kRelu,
  kRelu6,
  kLeakyRelu,
  kHardSwish,
  kHardSigmoid,
  kSigmoid
};

/// The loops' form of `activation` ("" is kNone); false for the ones they
/// leave to oneDNN (swish, tanh, ...).
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
  } else if (type == "sigmoid") {
    *act = Act::kSigmoid;
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
    case Act::kSigmoid:
      return fn(std::integral_constant<Act, Act::kSigmoid>());
    case Act::kNone:
      break;
  }
  return fn(std::integral_constant<Act, Act::kNone>());
}

/// exp's range reduction and polynomial (Cephes' expf): exp(x) =
/// 2^n * exp(r), n = round(x / ln 2), r = x - n ln 2 in two steps, exp(r)
/// by a degree-7 polynomial; within 2 ulp over [-87, 88].
struct ExpConstants {
  static constexpr float kMax = 88.3762626647949f;
  static constexpr float kMin = -87.3365447504020f;
  static constexpr float kLog2e = 1.44269504088896341f;
  static constexpr float kLn2High = 0.693359375f;
  static constexpr float kLn2Low = -2.12194440e-4f;
  static constexpr float kP[6] = {1.9875691500e-4f, 1.3981999507e-3f,
                                  8.3334519073e-3f, 4.1665795894e-2f,
                                  1.6666665459e-1f, 5.0000001201e-1f};
};

/// The output columns [*begin, *end) of a window loop (depthwise, stem)
/// whose every tap lies inside the input's width: the columns left and
/// right of them run one at a time with checks. `Conv` has in_w, out_w,
/// kernel_w, stride_w and pad_left.
template <typename Conv>
void InnerColumns(const Conv& p, int64_t* begin, int64_t* end) {
  *begin = std::min(p.out_w, (p.pad_left + p.stride_w - 1) / p.stride_w);
  *end = 0;
  if (p.in_w - p.kernel_w + p.pad_left >= 0) {
    *end = (p.in_w - p.kernel_w + p.pad_left) / p.stride_w + 1;
  }
  *end = std::max(*begin, std::min(p.out_w, *end));
}

}  // namespace own_loops

namespace avx512 {

using own_loops::Act;

constexpr int kLanes = 16;
/// Accumulators a tile may hold: 24 of the 32 registers, the filter's
/// vectors and the broadcast input most of the rest.
constexpr int kTileVectors = 24;
/// The most vectors of channels one tile spans (64 channels).
constexpr int kTileWidth = 4;

using V = __m512;
using Mask = __mmask16;

/// The first min(n, kLanes) lanes (n >= 1).
PDLITE_AVX512 inline Mask FirstLanes(int64_t n) {
  return n >= 16 ? Mask(0xFFFF) : Mask((1u << n) - 1);
}
PDLITE_AVX512 inline V Zero() { return _mm512_setzero_ps(); }
PDLITE_AVX512 inline V Set1(float x) { return _mm512_set1_ps(x); }
PDLITE_AVX512 inline V Load(const float* p) { return _mm512_loadu_ps(p); }
/// Lanes outside `m` read as zeros, and their memory is not touched.
PDLITE_AVX512 inline V LoadFirst(Mask m, const float* p) {
  return _mm512_maskz_loadu_ps(m, p);
}
PDLITE_AVX512 inline void Store(float* p, V v) { _mm512_storeu_ps(p, v); }
PDLITE_AVX512 inline void StoreFirst(float* p, Mask m, V v) {
  _mm512_mask_storeu_ps(p, m, v);
}
/// a * b + c.
PDLITE_AVX512 inline V MulAdd(V a, V b, V c) {
  return _mm512_fmadd_ps(a, b, c);
}
PDLITE_AVX512 inline V Add(V a, V b) { return _mm512_add_ps(a, b); }
PDLITE_AVX512 inline V Sub(V a, V b) { return _mm512_sub_ps(a, b); }
// min and max through their zero-masking forms: GCC 12's plain forms
// start from an undefined vector and warn (-Wmaybe-uninitialized).
PDLITE_AVX512 inline V Max(V a, V b) {
  return _mm512_maskz_max_ps(__mmask16(0xFFFF), a, b);
}
PDLITE_AVX512 inline V Min(V a, V b) {
  return _mm512_maskz_min_ps(__mmask16(0xFFFF), a, b);
}
/// An 8-lane vector with zeros above.
PDLITE_AVX512 inline V Widen(__m256 v) {
  return _mm512_castpd_ps(_mm512_maskz_insertf64x4(
      __mmask8(0xFF), _mm512_setzero_pd(), _mm256_castps_pd(v), 0));
}

/// exp(x) on every lane (ExpConstants).
PDLITE_AVX512 inline V Exp(V x) {
  using C = own_loops::ExpConstants;
  x = Min(Max(x, _mm512_set1_ps(C::kMin)), _mm512_set1_ps(C::kMax));
  const V n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(C::kLog2e)),
                                   _MM_FROUND_TO_NEAREST_INT);
  V r = _mm512_fnmadd_ps(n, _mm512_set1_ps(C::kLn2High), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(C::kLn2Low), r);
  V p = _mm512_set1_ps(C::kP[0]);
  for (int i = 1; i < 6; ++i)
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(C::kP[i]));
  p = _mm512_fmadd_ps(_mm512_mul_ps(p, r), r,
                      _mm512_add_ps(r, _mm512_set1_ps(1.f)));
  // 2^n in two halves, so that n = 128 (x near kMax) does not overflow.
  const __m512i e = _mm512_cvtps_epi32(n);
  const __m512i half = _mm512_srai_epi32(e, 1);
  const V two_half = _mm512_castsi512_ps(
      _mm512_slli_epi32(_mm512_add_epi32(half, _mm512_set1_epi32(127)), 23));
  const V two_rest = _mm512_castsi512_ps(_mm512_slli_epi32(
      _mm512_add_epi32(_mm512_sub_epi32(e, half), _mm512_set1_epi32(127)), 23));
  return _mm512_mul_ps(_mm512_mul_ps(p, two_half), two_rest);
}

/// kAct on every lane; alpha and beta as FusedActivation holds them.
template <Act kAct>
PDLITE_AVX512 inline V Activate(V x, float alpha, float beta) {
  const V zero = _mm512_setzero_ps();
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
      V v = _mm512_add_ps(x, _mm512_set1_ps(3.f));
      v = Min(Max(v, zero), _mm512_set1_ps(6.f));
      const V xv = _mm512_mul_ps(x, v);
      const V sixth = _mm512_set1_ps(1.f / 6.f);
      const V q = _mm512_mul_ps(xv, sixth);
      const V r = _mm512_fnmadd_ps(q, _mm512_set1_ps(6.f), xv);
      return _mm512_fmadd_ps(r, sixth, q);
    }
    case Act::kHardSigmoid: {
      const V v =
          _mm512_fmadd_ps(x, _mm512_set1_ps(alpha), _mm512_set1_ps(beta));
      // max/min return their second operand for a NaN: it stays NaN.
      return Min(_mm512_set1_ps(1.f), Max(zero, v));
    }
    case Act::kSigmoid: {
      const V one = _mm512_set1_ps(1.f);
      return _mm512_div_ps(one,
                           _mm512_add_ps(one, Exp(_mm512_sub_ps(zero, x))));
    }
  }
  return x;
}

/// What a stem's loops (stem_conv_loops-inl.h) take for at most 8 output
/// channels: 8 lanes, since with 16 half of every multiply-add is wasted,
/// and CPUs that run one 16-lane multiply-add a cycle run two 8-lane ones.
struct Lanes8 {
  using Vec = __m256;
  static constexpr int kVecLanes = 8;
  static constexpr int kVectors = 1;
  static constexpr int kTilePixels = 12;
  PDLITE_AVX512 static Vec Bias(const float* bias, int64_t count) {
    float lanes[8] = {};
    for (int64_t i = 0; bias != nullptr && i < count && i < 8; ++i) {
      lanes[i] = bias[i];
    }
    return _mm256_loadu_ps(lanes);
  }
  PDLITE_AVX512 static Vec Load(const float* p) { return _mm256_loadu_ps(p); }
  PDLITE_AVX512 static Vec MulAdd(float a, Vec w, Vec acc) {
    return _mm256_fmadd_ps(_mm256_set1_ps(a), w, acc);
  }
  template <Act kAct>
  PDLITE_AVX512 static void Store(
      float* out, int64_t count, Vec v, float alpha, float beta) {
    StoreFirst(out, FirstLanes(count), Activate<kAct>(Widen(v), alpha, beta));
  }
};

}  // namespace avx512

namespace avx2 {

using own_loops::Act;

constexpr int kLanes = 8;
/// Accumulators a tile may hold: 12 of the 16 registers, the filter's
/// vectors and the broadcast input the rest.
constexpr int kTileVectors = 12;
/// The most vectors of channels one tile spans (24 channels): with four,
/// the filter's vectors no longer fit beside the accumulators.
constexpr int kTileWidth = 3;

using V = __m256;
struct Mask {
  __m256i lanes;
  int count;  // of the first lanes, 1 to 8
};

/// The first min(n, kLanes) lanes (n >= 1).
PDLITE_AVX2 inline Mask FirstLanes(int64_t n) {
  const int count = n >= 8 ? 8 : static_cast<int>(n);
  return {_mm256_cmpgt_epi32(_mm256_set1_epi32(count),
                             _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)),
          count};
}
PDLITE_AVX2 inline V Zero() { return _mm256_setzero_ps(); }
PDLITE_AVX2 inline V Set1(float x) { return _mm256_set1_ps(x); }
PDLITE_AVX2 inline V Load(const float* p) { return _mm256_loadu_ps(p); }
/// Lanes outside `m` read as zeros, and their memory is not touched.
PDLITE_AVX2 inline V LoadFirst(const Mask& m, const float* p) {
  return m.count == 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, m.lanes);
}
PDLITE_AVX2 inline void Store(float* p, V v) { _mm256_storeu_ps(p, v); }
/// A partial store in 4, 2 and 1 lanes: AMD's Zen 2 runs a masked store
/// (vmaskmovps) as dozens of micro-ops, and a detector's layers of 12 or
/// 36 channels store a partial vector for every pixel.
PDLITE_AVX2 inline void StoreFirst(float* p, const Mask& m, V v) {
  if (m.count == 8) {
    _mm256_storeu_ps(p, v);
    return;
  }
  __m128 x = _mm256_castps256_ps128(v);
  if (m.count & 4) {
    _mm_storeu_ps(p, x);
    x = _mm256_extractf128_ps(v, 1);
    p += 4;
  }
  if (m.count & 2) {
    _mm_storel_pi(reinterpret_cast<__m64*>(p), x);
    x = _mm_movehl_ps(x, x);
    p += 2;
  }
  if (m.count & 1) _mm_store_ss(p, x);
}
/// a * b + c.
PDLITE_AVX2 inline V MulAdd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
PDLITE_AVX2 inline V Add(V a, V b) { return _mm256_add_ps(a, b); }
PDLITE_AVX2 inline V Sub(V a, V b) { return _mm256_sub_ps(a, b); }
PDLITE_AVX2 inline V Max(V a, V b) { return _mm256_max_ps(a, b); }
PDLITE_AVX2 inline V Min(V a, V b) { return _mm256_min_ps(a, b); }

/// exp(x) on every lane, as avx512::Exp computes it.
PDLITE_AVX2 inline V Exp(V x) {
  using C = own_loops::ExpConstants;
  x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(C::kMin)),
                    _mm256_set1_ps(C::kMax));
  const V n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(C::kLog2e)),
                              _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  V r = _mm256_fnmadd_ps(n, _mm256_set1_ps(C::kLn2High), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(C::kLn2Low), r);
  V p = _mm256_set1_ps(C::kP[0]);
  for (int i = 1; i < 6; ++i)
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(C::kP[i]));
  p = _mm256_fmadd_ps(_mm256_mul_ps(p, r), r,
                      _mm256_add_ps(r, _mm256_set1_ps(1.f)));
  const __m256i e = _mm256_cvtps_epi32(n);
  const __m256i half = _mm256_srai_epi32(e, 1);
  const V two_half = _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_add_epi32(half, _mm256_set1_epi32(127)), 23));
  const V two_rest = _mm256_castsi256_ps(_mm256_slli_epi32(
      _mm256_add_epi32(_mm256_sub_epi32(e, half), _mm256_set1_epi32(127)), 23));
  return _mm256_mul_ps(_mm256_mul_ps(p, two_half), two_rest);
}

/// kAct on every lane, as avx512::Activate computes it.
template <Act kAct>
PDLITE_AVX2 inline V Activate(V x, float alpha, float beta) {
  const V zero = _mm256_setzero_ps();
  switch (kAct) {
    case Act::kNone:
      return x;
    case Act::kRelu:
      return _mm256_max_ps(x, zero);
    case Act::kRelu6:
      return _mm256_min_ps(_mm256_max_ps(x, zero), _mm256_set1_ps(beta));
    case Act::kLeakyRelu: {
      const V negative = _mm256_cmp_ps(x, zero, _CMP_LT_OQ);
      return _mm256_blendv_ps(x, _mm256_mul_ps(x, _mm256_set1_ps(alpha)),
                              negative);
    }
    case Act::kHardSwish: {
      // The division's rounding, as avx512::Activate explains.
      V v = _mm256_add_ps(x, _mm256_set1_ps(3.f));
      v = _mm256_min_ps(_mm256_max_ps(v, zero), _mm256_set1_ps(6.f));
      const V xv = _mm256_mul_ps(x, v);
      const V sixth = _mm256_set1_ps(1.f / 6.f);
      const V q = _mm256_mul_ps(xv, sixth);
      const V r = _mm256_fnmadd_ps(q, _mm256_set1_ps(6.f), xv);
      return _mm256_fmadd_ps(r, sixth, q);
    }
    case Act::kHardSigmoid: {
      const V v =
          _mm256_fmadd_ps(x, _mm256_set1_ps(alpha), _mm256_set1_ps(beta));
      // max/min return their second operand for a NaN: it stays NaN.
      return _mm256_min_ps(_mm256_set1_ps(1.f), _mm256_max_ps(zero, v));
    }
    case Act::kSigmoid: {
      const V one = _mm256_set1_ps(1.f);
      return _mm256_div_ps(one,
                           _mm256_add_ps(one, Exp(_mm256_sub_ps(zero, x))));
    }
  }
  return x;
}

/// What a stem's loops (stem_conv_loops-inl.h) take for at most 8 output
/// channels: one vector.
struct Lanes8 {
  using Vec = V;
  static constexpr int kVecLanes = 8;
  static constexpr int kVectors = 1;
  static constexpr int kTilePixels = 12;
  PDLITE_AVX2 static Vec Bias(const float* bias, int64_t count) {
    return bias != nullptr ? LoadFirst(FirstLanes(count), bias) : Zero();
  }
  PDLITE_AVX2 static Vec Load(const float* p) { return _mm256_loadu_ps(p); }
  PDLITE_AVX2 static Vec MulAdd(float a, Vec w, Vec acc) {
    return _mm256_fmadd_ps(_mm256_set1_ps(a), w, acc);
  }
  template <Act kAct>
  PDLITE_AVX2 static void Store(
      float* out, int64_t count, Vec v, float alpha, float beta) {
    StoreFirst(out, FirstLanes(count), Activate<kAct>(v, alpha, beta));
  }
};

}  // namespace avx2

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
