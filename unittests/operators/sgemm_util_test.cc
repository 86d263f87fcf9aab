// The plain kernels' one-thread GEMMs (kernels/cpu/plain/sgemm_util.h)
// against a plain triple loop: transposes, row strides wider than the
// matrices, alpha, beta 0 (C not read: NaNs in it do not carry over), 1
// and another, and empty inner dimensions.
#include "kernels/cpu/plain/sgemm_util.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace paddle_lite {
namespace kernels {
namespace plain {
namespace {

struct Case {
  bool trans_a, trans_b;
  int64_t m, n, k;
  float alpha, beta;
};

float Value(int64_t i) { return 0.25f * static_cast<float>((i * 7) % 11 - 5); }

void Check(const Case& c, bool avx2) {
  SCOPED_TRACE(::testing::Message()
               << "trans " << c.trans_a << c.trans_b << " m" << c.m << " n"
               << c.n << " k" << c.k << " alpha " << c.alpha << " beta "
               << c.beta << (avx2 ? " SgemmAvx2" : " SgemmOneThread"));
  // Stored shapes, with 3 extra columns of padding per row.
  const int64_t a_rows = c.trans_a ? c.k : c.m, a_cols = c.trans_a ? c.m : c.k;
  const int64_t b_rows = c.trans_b ? c.n : c.k, b_cols = c.trans_b ? c.k : c.n;
  const int64_t lda = a_cols + 3, ldb = b_cols + 3, ldc = c.n + 3;
  std::vector<float> a(a_rows * lda + 1), b(b_rows * ldb + 1);
  for (size_t i = 0; i < a.size(); ++i) a[i] = Value(i);
  for (size_t i = 0; i < b.size(); ++i) b[i] = Value(i + 5);
  std::vector<float> got(c.m * ldc + 1), want(got.size());
  for (size_t i = 0; i < got.size(); ++i) {
    got[i] =
        c.beta == 0.f ? std::numeric_limits<float>::quiet_NaN() : Value(i + 3);
    want[i] = got[i];
  }
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t j = 0; j < c.n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < c.k; ++p) {
        const float av = c.trans_a ? a[p * lda + i] : a[i * lda + p];
        const float bv = c.trans_b ? b[j * ldb + p] : b[p * ldb + j];
        sum += static_cast<double>(av) * bv;
      }
      float& w = want[i * ldc + j];
      w = static_cast<float>(c.alpha * sum +
                             (c.beta == 0.f ? 0.0 : c.beta * w));
    }
  }
  if (avx2) {
    SgemmAvx2(c.trans_a, c.trans_b, c.m, c.n, c.k, c.alpha, a.data(), lda,
              b.data(), ldb, c.beta, got.data(), ldc);
  } else {
    SgemmOneThread(c.m, c.n, c.k, a.data(), lda, b.data(), ldb, c.beta,
                   got.data(), ldc);
  }
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t j = 0; j < ldc; ++j) {
      const float g = got[i * ldc + j], w = want[i * ldc + j];
      if (j >= c.n) {
        // Padding is never written.
        EXPECT_TRUE(std::isnan(w) ? std::isnan(g) : g == w) << i << "," << j;
        continue;
      }
      ASSERT_NEAR(g, w, 1e-4f + 1e-5f * std::abs(w)) << i << "," << j;
    }
  }
}

const std::vector<Case> kCases = {
    {false, false, 1, 1, 1, 1.f, 0.f},
    {false, false, 16, 2304, 27, 1.f, 0.f},
    {false, false, 7, 33, 5, 1.f, 1.f},
    {false, false, 40, 9, 64, 1.f, 0.5f},
    {false, false, 3, 4, 0, 1.f, 0.f},
    {false, false, 3, 4, 0, 1.f, 1.f},
    {false, true, 17, 13, 29, 0.5f, 0.f},
    {true, false, 13, 17, 29, 2.f, 1.f},
    {true, true, 9, 31, 6, -1.f, 0.25f},
};

TEST(SgemmUtil, Avx2MatchesTheLoop) {
  if (!HasSgemmAvx2()) GTEST_SKIP() << "no AVX2 and FMA here";
  for (const Case& c : kCases) Check(c, /*avx2=*/true);
}

TEST(SgemmUtil, OneThreadMatchesTheLoop) {
  // Row-major, no transposes, alpha 1: what SgemmOneThread takes.
  for (const Case& c : kCases) {
    if (c.trans_a || c.trans_b || c.alpha != 1.f) continue;
    if (c.beta != 0.f && c.beta != 1.f) continue;
    Check(c, /*avx2=*/false);
  }
}

}  // namespace
}  // namespace plain
}  // namespace kernels
}  // namespace paddle_lite
