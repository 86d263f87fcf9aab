// Naive reference pieces for the mul, matmul and matmul_v2 tests: operands
// as explicit (materialized, possibly transposed) matrices in double, and a
// triple-loop product. Each test composes its op's batch rules from these,
// independently of operators/matmul_shape.h. Also a check both batched ops
// share.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "framework/tensor.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {

/// One operand as a stack of row-major matrices: batch dims, then
/// [rows, cols] per matrix, values converted to double.
struct RefOperand {
  framework::DDim batch;
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<double> values;

  int64_t BatchCount() const {
    int64_t n = 1;
    for (int64_t d : batch) n *= d;
    return n;
  }
  const double* Matrix(int64_t b) const {
    return values.data() + b * rows * cols;
  }
};

/// Views `t` as matrices: a 1-D [K] becomes [1, K] when `vector_as_row`,
/// else [K, 1]; then every matrix is transposed (copied) if `transpose`.
template <typename T>
RefOperand ToRefOperand(const framework::Tensor& t,
                        bool vector_as_row,
                        bool transpose) {
  framework::DDim dims = t.dims();
  if (dims.size() == 1) {
    dims = vector_as_row ? framework::DDim{1, dims[0]}
                         : framework::DDim{dims[0], 1};
  }
  RefOperand op;
  op.batch.assign(dims.begin(), dims.end() - 2);
  const int64_t rows = dims[dims.size() - 2];
  const int64_t cols = dims[dims.size() - 1];
  std::vector<T> raw = ToVector<T>(t);
  op.values.assign(raw.begin(), raw.end());
  op.rows = rows;
  op.cols = cols;
  if (transpose) {
    std::vector<double> tv(op.values.size());
    const int64_t count = op.BatchCount();
    for (int64_t b = 0; b < count; ++b) {
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) {
          tv[b * rows * cols + j * rows + i] =
              op.values[b * rows * cols + i * cols + j];
        }
      }
    }
    op.values = tv;
    op.rows = cols;
    op.cols = rows;
  }
  return op;
}

/// Appends alpha * A[m, k] @ B[k, n] (row-major) to `out`, row by row.
inline void NaiveMatmul(const double* a,
                        const double* b,
                        int64_t m,
                        int64_t k,
                        int64_t n,
                        double alpha,
                        std::vector<double>* out) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) sum += a[i * k + p] * b[p * n + j];
      out->push_back(alpha * sum);
    }
  }
}

/// Converts reference values to a tensor of T with `dims` (and `lod`).
template <typename T>
framework::Tensor RefTensor(const framework::DDim& dims,
                            const std::vector<double>& values,
                            const framework::LoD& lod = {}) {
  return MakeTensor<T>(dims, std::vector<T>(values.begin(), values.end()), lod);
}

/// Tolerances per element type: float sums over K = 127 terms drift by a
/// few ulps times K; integer products are exact.
template <typename T>
double RefTolerance() {
  if (std::is_same_v<T, float>) return 1e-4;
  if (std::is_same_v<T, double>) return 1e-10;
  return 0;
}

/// Random operand values: [-1, 1) for floats; integers in [-4, 4] (the
/// casts truncate [-5, 5)).
template <typename T>
framework::Tensor RefRandom(const framework::DDim& dims, uint32_t seed) {
  if (std::is_floating_point_v<T>) return RandomTensor<T>(dims, -1, 1, seed);
  return RandomTensor<T>(dims, -5, 5, seed);
}

/// `op` (matmul or matmul_v2) on a hostile batch of 2^40 empty products:
/// an empty output at once, with no offset kept per product (16 TB).
inline void ExpectEmptyProductsOfAHostileBatch(const std::string& op) {
  const int64_t batch = int64_t{1} << 40;
  OpTester t(op);
  t.Input("X", MakeTensor<float>({batch, 0, 8}, {}))
      .Input("Y", RandomTensor<float>({8, 8}))
      .Output("Out");
  t.Run();
  EXPECT_EQ(t.GetOutput("Out").dims(), (framework::DDim{batch, 0, 8})) << op;
}

}  // namespace testing
}  // namespace paddle_lite
