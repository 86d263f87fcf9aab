// C = alpha * op(A) @ op(B) over a batch of row-major fp32 matrices on
// cuBLAS: the common core of the mul, matmul, matmul_v2 and fc CUDA
// kernels (the CUDA counterpart of kernels/cpu/plain/gemm.h). Registers
// nothing; host code only.
#pragma once

#include <cstdint>
#include <vector>

#include "framework/tensor.h"
#include "kernels/cuda/cuda_helper.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

/// Sizes of one product: op(A) is [m, k], op(B) is [k, n], C is [m, n].
/// With trans_a, A is stored [k, m]; with trans_b, B is stored [n, k].
struct CublasGemmShape {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  bool trans_a = false;
  bool trans_b = false;
};

/// Queues one product per batch on dev's cuBLAS handle: C[i] = alpha *
/// op(A at a_offsets[i]) @ op(B at b_offsets[i]), where C[i] is the i-th
/// dense [m, n] block of `c` (a device pointer). Batches whose offsets
/// advance by fixed strides run as one strided-batched call; broadcast
/// batches that do not run as several. k == 0 gives zeros. `a` and `b`
/// are read only when there is something to multiply. fp32 math, or TF32
/// when dev.allow_tf32().
void CublasBatchedGemm(const CUDADeviceContext& dev,
                       const CublasGemmShape& shape,
                       float alpha,
                       const framework::Tensor& a,
                       const std::vector<int64_t>& a_offsets,
                       const framework::Tensor& b,
                       const std::vector<int64_t>& b_offsets,
                       float* c);

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite
