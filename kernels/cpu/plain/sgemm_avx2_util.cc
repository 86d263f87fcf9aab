// Eigen's GEMM compiled for AVX2 and FMA, in this file only: CMake adds
// -mavx2 -mfma to it alone, since the default build targets the baseline
// ISA. The macro below moves Eigen's code here into a namespace of this
// file's own, so that its AVX2 instantiations and the baseline ones other
// files make never replace each other at link time (one definition rule).
#ifdef EIGEN_CORE_H
#error "sgemm_avx2_util.cc must include Eigen itself, after its rename"
#endif
#define Eigen pdlite_eigen_avx2
#include <Eigen/Core>

#include "kernels/cpu/plain/sgemm_util.h"

namespace paddle_lite {
namespace kernels {
namespace plain {
namespace {

template <int kOrder>
using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, kOrder>;
template <int kOrder>
using ConstMap = Eigen::Map<const Matrix<kOrder>, 0, Eigen::OuterStride<>>;

// op(A): row-major [m, k], or, transposed, A stored [k, m] row-major,
// which is op(A) column-major.
template <int kOrder>
ConstMap<kOrder> Operand(const float* data,
                         int64_t rows,
                         int64_t cols,
                         int64_t stride) {
  return ConstMap<kOrder>(data, rows, cols, Eigen::OuterStride<>(stride));
}

template <typename Lhs, typename Rhs>
void Accumulate(const Lhs& lhs,
                const Rhs& rhs,
                float alpha,
                float beta,
                float* c,
                int64_t ldc) {
  Eigen::Map<Matrix<Eigen::RowMajor>, 0, Eigen::OuterStride<>> out(
      c, lhs.rows(), rhs.cols(), Eigen::OuterStride<>(ldc));
  if (beta == 0.f) {
    // BLAS's rule: C is not read, so NaNs in it do not carry over.
    out.noalias() = alpha * lhs * rhs;
    return;
  }
  if (beta != 1.f) out *= beta;
  out.noalias() += alpha * lhs * rhs;
}

template <typename Lhs>
void WithRhs(const Lhs& lhs,
             bool trans_b,
             int64_t n,
             int64_t k,
             float alpha,
             const float* b,
             int64_t ldb,
             float beta,
             float* c,
             int64_t ldc) {
  if (trans_b) {
    Accumulate(lhs, Operand<Eigen::ColMajor>(b, k, n, ldb), alpha, beta, c,
               ldc);
  } else {
    Accumulate(lhs, Operand<Eigen::RowMajor>(b, k, n, ldb), alpha, beta, c,
               ldc);
  }
}

}  // namespace

void SgemmAvx2(bool trans_a,
               bool trans_b,
               int64_t m,
               int64_t n,
               int64_t k,
               float alpha,
               const float* a,
               int64_t lda,
               const float* b,
               int64_t ldb,
               float beta,
               float* c,
               int64_t ldc) {
  if (trans_a) {
    WithRhs(Operand<Eigen::ColMajor>(a, m, k, lda), trans_b, n, k, alpha, b,
            ldb, beta, c, ldc);
  } else {
    WithRhs(Operand<Eigen::RowMajor>(a, m, k, lda), trans_b, n, k, alpha, b,
            ldb, beta, c, ldc);
  }
}

}  // namespace plain
}  // namespace kernels
}  // namespace paddle_lite
