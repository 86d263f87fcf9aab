// The cuBLAS batched GEMM of cublas_gemm_util.h.
//
// cuBLAS is column-major: a row-major [r, c] matrix is its column-major
// transpose [c, r]. So the row-major C = op(A) @ op(B) is computed as the
// column-major C^T = op(B)^T @ op(A)^T, that is with the operands swapped
// and each one's stored matrix passed with its own transpose flag.
#include "kernels/cuda/plain/cublas_gemm_util.h"

#include <algorithm>
#include <climits>

#include "platform/enforce.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {
namespace {

// The most batches one call gets: some cuBLAS kernels put the batch on a
// grid dimension limited to 65535.
constexpr int64_t kMaxBatchPerCall = 65535;

int GemmInt(int64_t v, const char* what) {
  PADDLE_ENFORCE(v >= 0 && v <= INT_MAX,
                 errors::Unimplemented(
                     "GEMM ", what, " = ", v,
                     " does not fit cuBLAS's 32-bit sizes; this product is "
                     "too large for the CUDA kernel"));
  return static_cast<int>(v);
}

}  // namespace

void CublasBatchedGemm(const CUDADeviceContext& dev,
                       const CublasGemmShape& s,
                       float alpha,
                       const framework::Tensor& a,
                       const std::vector<int64_t>& a_offsets,
                       const framework::Tensor& b,
                       const std::vector<int64_t>& b_offsets,
                       float* c) {
  const int64_t batch = static_cast<int64_t>(a_offsets.size());
  if (batch == 0 || s.m == 0 || s.n == 0) return;
  const int64_t matrix_size = s.m * s.n;
  if (s.k == 0) {
    // An empty sum: every element is 0 whatever alpha is.
    PDLITE_CUDA_CHECK(cudaMemsetAsync(
        c, 0, static_cast<size_t>(batch * matrix_size) * sizeof(float),
        dev.stream()));
    return;
  }
  const float* a_data = a.data<float>();
  const float* b_data = b.data<float>();

  const int m = GemmInt(s.m, "m");
  const int n = GemmInt(s.n, "n");
  const int k = GemmInt(s.k, "k");
  // Leading dims of the stored matrices, read column-major.
  const int lda = s.trans_a ? m : k;
  const int ldb = s.trans_b ? k : n;
  const cublasOperation_t op_a = s.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = s.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasComputeType_t compute =
      dev.allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  const float beta = 0.0f;

  // Runs of batches whose A and B offsets both advance by one fixed,
  // non-negative stride (a uniform batch is a single run).
  int64_t first = 0;
  while (first < batch) {
    int64_t stride_a = 0;
    int64_t stride_b = 0;
    int64_t end = first + 1;
    if (end < batch) {
      stride_a = a_offsets[end] - a_offsets[first];
      stride_b = b_offsets[end] - b_offsets[first];
      if (stride_a >= 0 && stride_b >= 0) {
        while (end < batch && end - first < kMaxBatchPerCall &&
               a_offsets[end] - a_offsets[end - 1] == stride_a &&
               b_offsets[end] - b_offsets[end - 1] == stride_b) {
          ++end;
        }
      }
    }
    const int64_t count = end - first;
    if (count == 1) stride_a = stride_b = 0;
    PDLITE_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        dev.cublas_handle(), op_b, op_a, n, m, k, &alpha,
        b_data + b_offsets[first], CUDA_R_32F, ldb, stride_b,
        a_data + a_offsets[first], CUDA_R_32F, lda, stride_a, &beta,
        c + first * matrix_size, CUDA_R_32F, n, matrix_size,
        static_cast<int>(count), compute, CUBLAS_GEMM_DEFAULT));
    first = end;
  }
}

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite
