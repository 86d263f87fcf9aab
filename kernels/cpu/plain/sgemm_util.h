// One-thread float GEMM for the plain kernels, never made per matrix size,
// so a new input shape costs nothing extra. On CPUs with AVX2 and FMA it is
// Eigen's GEMM compiled for them (sgemm_avx2_util.cc; the default build's
// Eigen targets the baseline ISA, 3x slower); on others, oneDNN's sgemm,
// whose code is generated at its first call in a process (12-40 ms here,
// which the AVX2 build avoids). Private to kernels/cpu/plain; keeps
// oneDNN's and Eigen's headers out of the kernels'.
#pragma once

#include <cstdint>

namespace paddle_lite {
namespace kernels {
namespace plain {

/// C = A B + beta C, row-major: A is [m, k] with row stride lda, B [k, n]
/// with ldb, C [m, n] with ldc. Runs on the calling thread: the plain
/// kernels split work across the predictor's threads themselves.
void SgemmOneThread(int64_t m,
                    int64_t n,
                    int64_t k,
                    const float* a,
                    int64_t lda,
                    const float* b,
                    int64_t ldb,
                    float beta,
                    float* c,
                    int64_t ldc);

/// Whether SgemmAvx2 may run on this CPU (platform::WidestCpuIsa(), so
/// DNNL_MAX_CPU_ISA caps it too).
bool HasSgemmAvx2();

/// C = alpha op(A) op(B) + beta C on the calling thread, row-major, for
/// CPUs where HasSgemmAvx2(). op(A) is [m, k]: A is stored [m, k] with row
/// stride lda, or, with trans_a, [k, m] with row stride lda; likewise op(B)
/// [k, n] from B stored [k, n], or [n, k] with trans_b. With beta 0, C is
/// not read.
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
               int64_t ldc);

}  // namespace plain
}  // namespace kernels
}  // namespace paddle_lite
