// One-thread float GEMM for the plain kernels, through oneDNN's sgemm: its
// code is generated once per process for the widest ISA the CPU has (the
// default build's Eigen targets the baseline ISA, 3x slower here), never
// per matrix size, so a new input shape costs nothing extra. Private to
// kernels/cpu/plain; keeps oneDNN's header out of the kernels'.
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

}  // namespace plain
}  // namespace kernels
}  // namespace paddle_lite
