// C = alpha * op(A) @ op(B) over a batch of row-major matrices, the common
// core of the mul, matmul and matmul_v2 CPU kernels. Private to
// kernels/cpu/plain and included only by those kernel .cc files: it pulls
// in Eigen.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "framework/tensor.h"
#include "kernels/cpu/plain/sgemm_util.h"
#include "kernels/cpu/plain/wrapping_arith.h"
#include "platform/device_context.h"
#include "platform/eigen.h"

namespace paddle_lite {
namespace kernels {

/// Sizes of one product: op(A) is [m, k], op(B) is [k, n], C is [m, n].
/// With trans_a, A is stored [k, m]; with trans_b, B is stored [n, k].
struct GemmShape {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  bool trans_a = false;
  bool trans_b = false;
};

namespace gemm_internal {

// Fewest rows of C per work unit: each unit packs its own copy of op(B),
// which must stay cheap next to the unit's multiply-adds.
constexpr int64_t kMinRowTile = 64;
// Narrowest column part when one product is split by columns.
constexpr int64_t kMinColPart = 128;

// C[r0:r0+rows, c0:c0+cols] = alpha * op(A)[r0:r0+rows, :] @
// op(B)[:, c0:c0+cols] for one matrix of the batch (C is [m, n]).
template <typename T>
void GemmBlock(const GemmShape& s,
               T alpha,
               const T* a,
               const T* b,
               T* c,
               int64_t r0,
               int64_t rows,
               int64_t c0,
               int64_t cols) {
  if constexpr (std::is_same_v<T, float>) {
    if (plain::HasSgemmAvx2()) {
      // Strides pick the block: op(A)'s rows r0.., op(B)'s columns c0..
      plain::SgemmAvx2(s.trans_a, s.trans_b, rows, cols, s.k, alpha,
                       s.trans_a ? a + r0 : a + r0 * s.k, s.trans_a ? s.m : s.k,
                       s.trans_b ? b + c0 * s.k : b + c0, s.trans_b ? s.k : s.n,
                       0.f, c + r0 * s.n + c0, s.n);
      return;
    }
  }
  if constexpr (std::is_floating_point_v<T>) {
    using Matrix =
        Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using ConstMap = Eigen::Map<const Matrix>;
    Eigen::Map<Matrix> c_full(c, s.m, s.n);
    auto c_block = c_full.block(r0, c0, rows, cols);
    // Eigen's own blocked product; transposes are views, never copies.
    auto multiply = [&](const auto& lhs, const auto& rhs) {
      c_block.noalias() = alpha * lhs * rhs;
    };
    auto with_lhs = [&](const auto& lhs) {
      if (s.trans_b) {
        multiply(lhs, ConstMap(b, s.n, s.k).middleRows(c0, cols).transpose());
      } else {
        multiply(lhs, ConstMap(b, s.k, s.n).middleCols(c0, cols));
      }
    };
    if (s.trans_a) {
      with_lhs(ConstMap(a, s.k, s.m).middleCols(r0, rows).transpose());
    } else {
      with_lhs(ConstMap(a, s.m, s.k).middleRows(r0, rows));
    }
  } else {
    // Integer types: a plain loop in i-p-j order (contiguous inner loop
    // when B is not transposed) keeps compile time and code size small.
    // It wraps around on overflow (undefined in C++), as the elementwise
    // kernels do.
    for (int64_t i = r0; i < r0 + rows; ++i) {
      T* c_row = c + i * s.n + c0;
      std::fill(c_row, c_row + cols, T(0));
      for (int64_t p = 0; p < s.k; ++p) {
        const T a_ip = s.trans_a ? a[p * s.m + i] : a[i * s.k + p];
        if (s.trans_b) {
          for (int64_t j = 0; j < cols; ++j) {
            c_row[j] =
                WrappingAdd(c_row[j], WrappingMul(a_ip, b[(c0 + j) * s.k + p]));
          }
        } else {
          const T* b_row = b + p * s.n + c0;
          for (int64_t j = 0; j < cols; ++j) {
            c_row[j] = WrappingAdd(c_row[j], WrappingMul(a_ip, b_row[j]));
          }
        }
      }
      if (alpha != T(1)) {
        for (int64_t j = 0; j < cols; ++j) {
          c_row[j] = WrappingMul(c_row[j], alpha);
        }
      }
    }
  }
}

}  // namespace gemm_internal

/// Runs one product per batch: C[i] = alpha * op(A at a_offsets[i]) @
/// op(B at b_offsets[i]), where C[i] is the i-th dense [m, n] block of `c`
/// (a_offsets and b_offsets have one element offset per batch). Work is
/// split across the context's threads by batches and row tiles, and also by
/// columns when there are too few rows to keep every thread busy (an fc on
/// one sample). `a` and `b` are read only when there is something to
/// multiply, so empty operands need no memory.
template <typename T>
void BatchedGemm(const platform::CPUDeviceContext& dev,
                 const GemmShape& s,
                 T alpha,
                 const framework::Tensor& a,
                 const std::vector<int64_t>& a_offsets,
                 const framework::Tensor& b,
                 const std::vector<int64_t>& b_offsets,
                 T* c) {
  const int64_t batch = static_cast<int64_t>(a_offsets.size());
  if (batch == 0 || s.m == 0 || s.n == 0) return;
  const int64_t matrix_size = s.m * s.n;
  if (s.k == 0) {
    // An empty sum: every element is 0 whatever alpha is.
    std::fill(c, c + batch * matrix_size, T(0));
    return;
  }
  const T* a_data = a.data<T>();
  const T* b_data = b.data<T>();

  if (dev.batch_invariant()) {
    // Each row of C a product of its own, on all of B: Eigen blocks a
    // product of many rows, and its sums then round otherwise as the rows
    // change in number (DeviceContext::batch_invariant).
    const double row_cost = static_cast<double>(s.n) * s.k / 4.0;
    dev.ParallelFor(batch * s.m, row_cost, [&](int64_t begin, int64_t end) {
      for (int64_t unit = begin; unit < end; ++unit) {
        const int64_t i = unit / s.m;
        gemm_internal::GemmBlock<T>(s, alpha, a_data + a_offsets[i],
                                    b_data + b_offsets[i], c + i * matrix_size,
                                    unit % s.m, 1, 0, s.n);
      }
    });
    return;
  }

  // About two units per thread (some slack for uneven threads), whole
  // matrices when the batch alone provides that.
  const int64_t threads = dev.num_threads();
  const int64_t rows_per_unit = (batch * s.m + 2 * threads - 1) / (2 * threads);
  const int64_t row_tile =
      std::min(s.m, std::max(rows_per_unit, gemm_internal::kMinRowTile));
  const int64_t row_tiles = (s.m + row_tile - 1) / row_tile;
  int64_t col_parts = 1;
  if (threads > 1 && batch * row_tiles < threads) {
    const int64_t wanted =
        (threads + batch * row_tiles - 1) / (batch * row_tiles);
    const int64_t widest =
        std::max<int64_t>(1, s.n / gemm_internal::kMinColPart);
    col_parts = std::min(wanted, widest);
  }
  const int64_t col_step = (s.n + col_parts - 1) / col_parts;
  col_parts = (s.n + col_step - 1) / col_step;

  // A unit is one row tile of one (batch, column part); consecutive tiles
  // of the same (batch, column part) run as one product, so a single
  // thread computes each matrix with one call.
  const int64_t groups = batch * col_parts;
  // Cycles per unit, assuming Eigen's SIMD kernel does ~4 multiply-adds a
  // cycle; this underestimates the plain integer loop, which then stays on
  // one thread for somewhat larger products than it ideally would.
  const double cost = static_cast<double>(row_tile) * col_step * s.k / 4.0;
  dev.ParallelFor(groups * row_tiles, cost, [&](int64_t begin, int64_t end) {
    while (begin < end) {
      const int64_t group = begin / row_tiles;
      const int64_t first_tile = begin - group * row_tiles;
      const int64_t end_tile = std::min(end - group * row_tiles, row_tiles);
      const int64_t r0 = first_tile * row_tile;
      const int64_t rows = std::min(end_tile * row_tile, s.m) - r0;
      const int64_t i = group / col_parts;
      const int64_t c0 = (group % col_parts) * col_step;
      const int64_t cols = std::min(col_step, s.n - c0);
      gemm_internal::GemmBlock<T>(s, alpha, a_data + a_offsets[i],
                                  b_data + b_offsets[i], c + i * matrix_size,
                                  r0, rows, c0, cols);
      begin = group * row_tiles + end_tile;
    }
  });
}

}  // namespace kernels
}  // namespace paddle_lite
