// Shape rules of matmul (v1) and matmul_v2 (ops.md sections 10.2, 10.3),
// shared by the op definitions (InferShape) and their kernels, so the two
// can never disagree on how a batched product maps onto GEMMs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "framework/ddim.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace operators {

/// A batched matrix product resolved from the operand dims: for every batch
/// b, Out[b] ([m, n]) = op(X)[m, k] @ op(Y)[k, n], where op(X) reads X's
/// elements from x_offsets[b] on (stored [k, m] when trans_x, else [m, k])
/// and op(Y) reads Y's from y_offsets[b] (stored [n, k] when trans_y, else
/// [k, n]). Out's batches are dense and consecutive.
struct MatmulPlan {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  /// Effective transposes (1-D operands may ignore the attribute).
  bool trans_x = false;
  bool trans_y = false;
  /// Element offsets into X and Y, one per batch (size = batch count;
  /// none when the product is empty, m or n 0: a hostile [2^31, 0, 8] must
  /// not cost 2^31 offsets for no element).
  std::vector<int64_t> x_offsets;
  std::vector<int64_t> y_offsets;
  framework::DDim out_dims;
};

namespace matmul_internal {

inline const char* BoolText(bool v) { return v ? "true" : "false"; }

// The sizes of one product once both operands are (at least) 2-D; checks
// that the inner dims agree and names both operands if not.
inline void ResolveMatrixSizes(const char* op,
                               const framework::DDim& x2,
                               const framework::DDim& y2,
                               const framework::DDim& x_dims,
                               const framework::DDim& y_dims,
                               const char* trans_x_name,
                               const char* trans_y_name,
                               MatmulPlan* plan) {
  const int64_t xh = x2[x2.size() - 2];
  const int64_t xw = x2[x2.size() - 1];
  const int64_t yh = y2[y2.size() - 2];
  const int64_t yw = y2[y2.size() - 1];
  plan->m = plan->trans_x ? xw : xh;
  plan->n = plan->trans_y ? yh : yw;
  const int64_t kx = plan->trans_x ? xh : xw;
  const int64_t ky = plan->trans_y ? yw : yh;
  PADDLE_ENFORCE_EQ(
      kx, ky,
      errors::InvalidArgument(
          op, ": the inner dims of X ", x_dims, " (", trans_x_name, "=",
          BoolText(plan->trans_x), ") and Y ", y_dims, " (", trans_y_name, "=",
          BoolText(plan->trans_y), ") must match, got ", kx, " vs ", ky, "."));
  plan->k = kx;
}

inline void EnforceNotScalar(const char* op,
                             const char* slot,
                             const framework::DDim& dims) {
  PADDLE_ENFORCE_GE(
      dims.size(), 1u,
      errors::InvalidArgument(op, ": ", slot, " must have rank >= 1, got ",
                              dims, "."));
}

}  // namespace matmul_internal

/// matmul (v1): 1-D operands become [1, K] (X) / [K, 1] (Y) before the
/// transposes; leading dims flatten into one batch count that must be equal
/// on both sides unless one side is 2-D (then it is reused for every
/// batch). Throws InvalidArgument naming both shapes on a mismatch.
inline MatmulPlan PlanMatmul(const framework::DDim& x_dims,
                             const framework::DDim& y_dims,
                             bool transpose_x,
                             bool transpose_y) {
  using matmul_internal::EnforceNotScalar;
  EnforceNotScalar("matmul", "X", x_dims);
  EnforceNotScalar("matmul", "Y", y_dims);
  const framework::DDim x2 =
      x_dims.size() == 1 ? framework::DDim{1, x_dims[0]} : x_dims;
  const framework::DDim y2 =
      y_dims.size() == 1 ? framework::DDim{y_dims[0], 1} : y_dims;
  MatmulPlan plan;
  plan.trans_x = transpose_x;
  plan.trans_y = transpose_y;
  matmul_internal::ResolveMatrixSizes("matmul", x2, y2, x_dims, y_dims,
                                      "transpose_X", "transpose_Y", &plan);

  const int x_rank = static_cast<int>(x2.size());
  const int y_rank = static_cast<int>(y2.size());
  const bool x_batched = x_rank >= 3;
  const bool y_batched = y_rank >= 3;
  const int64_t x_batch = framework::Product(x2, 0, x_rank - 2);
  const int64_t y_batch = framework::Product(y2, 0, y_rank - 2);
  if (x_batched && y_batched) {
    PADDLE_ENFORCE_EQ(
        x_batch, y_batch,
        errors::InvalidArgument(
            "matmul: X ", x_dims, " and Y ", y_dims,
            " have different batch counts ", x_batch, " and ", y_batch,
            "; matmul (v1) does not broadcast batch dims (use matmul_v2)."));
  }
  const int64_t batch = x_batched ? x_batch : (y_batched ? y_batch : 1);
  const int64_t x_step = x_batched ? x2[x_rank - 2] * x2[x_rank - 1] : 0;
  const int64_t y_step = y_batched ? y2[y_rank - 2] * y2[y_rank - 1] : 0;
  const int64_t offsets = plan.m == 0 || plan.n == 0 ? 0 : batch;
  plan.x_offsets.resize(offsets);
  plan.y_offsets.resize(offsets);
  for (int64_t b = 0; b < offsets; ++b) {
    plan.x_offsets[b] = b * x_step;
    plan.y_offsets[b] = b * y_step;
  }

  // The batch dims of whichever operand has them, X first.
  if (x_batched) {
    plan.out_dims.assign(x2.begin(), x2.end() - 2);
  } else if (y_batched) {
    plan.out_dims.assign(y2.begin(), y2.end() - 2);
  }
  plan.out_dims.push_back(plan.m);
  plan.out_dims.push_back(plan.n);
  // A 1-D operand's unit dim is dropped only when it is still 1 after the
  // transpose (Paddle checks the value, not where it came from).
  if (x_dims.size() == 1 && plan.out_dims[plan.out_dims.size() - 2] == 1) {
    plan.out_dims.erase(plan.out_dims.end() - 2);
  }
  if (y_dims.size() == 1 && plan.out_dims.back() == 1) {
    plan.out_dims.pop_back();
  }
  if (plan.out_dims.empty()) plan.out_dims = {1};
  return plan;
}

/// matmul_v2: NumPy matmul with optional transposes of the last two dims.
/// A 1-D operand is a vector (its transpose flag is ignored, its unit dim
/// removed from Out); batch dims broadcast NumPy-style; both 1-D gives a
/// dot product of shape [1]. Throws InvalidArgument naming both shapes on
/// an inner-dim or broadcast mismatch.
inline MatmulPlan PlanMatmulV2(const framework::DDim& x_dims,
                               const framework::DDim& y_dims,
                               bool trans_x,
                               bool trans_y) {
  using matmul_internal::EnforceNotScalar;
  EnforceNotScalar("matmul_v2", "X", x_dims);
  EnforceNotScalar("matmul_v2", "Y", y_dims);
  const bool x_vector = x_dims.size() == 1;
  const bool y_vector = y_dims.size() == 1;
  const framework::DDim x2 = x_vector ? framework::DDim{1, x_dims[0]} : x_dims;
  const framework::DDim y2 = y_vector ? framework::DDim{y_dims[0], 1} : y_dims;
  MatmulPlan plan;
  plan.trans_x = x_vector ? false : trans_x;
  plan.trans_y = y_vector ? false : trans_y;
  matmul_internal::ResolveMatrixSizes("matmul_v2", x2, y2, x_dims, y_dims,
                                      "trans_x", "trans_y", &plan);

  // Broadcast the batch dims right-aligned; a missing dim acts as 1.
  const int x_batch_rank = static_cast<int>(x2.size()) - 2;
  const int y_batch_rank = static_cast<int>(y2.size()) - 2;
  const int batch_rank = std::max(x_batch_rank, y_batch_rank);
  framework::DDim batch_dims(batch_rank);
  // Per output batch dim: the element stride into X and Y (0 = broadcast).
  std::vector<int64_t> x_strides(batch_rank, 0);
  std::vector<int64_t> y_strides(batch_rank, 0);
  int64_t x_stride = x2[x_batch_rank] * x2[x_batch_rank + 1];
  int64_t y_stride = y2[y_batch_rank] * y2[y_batch_rank + 1];
  for (int i = batch_rank - 1; i >= 0; --i) {
    const int xi = i - (batch_rank - x_batch_rank);
    const int yi = i - (batch_rank - y_batch_rank);
    const int64_t xd = xi >= 0 ? x2[xi] : 1;
    const int64_t yd = yi >= 0 ? y2[yi] : 1;
    PADDLE_ENFORCE(
        xd == yd || xd == 1 || yd == 1,
        errors::InvalidArgument(
            "matmul_v2: the batch dims of X ", x_dims, " and Y ", y_dims,
            " cannot be broadcast: ", xd, " vs ", yd, " at batch axis ", i,
            " (counted from the left of the broadcast batch dims)."));
    batch_dims[i] = xd == 1 ? yd : xd;
    if (xd != 1) x_strides[i] = x_stride;
    if (yd != 1) y_strides[i] = y_stride;
    x_stride *= xd;
    y_stride *= yd;
  }

  const int64_t batch = framework::Product(batch_dims);
  const int64_t offsets = plan.m == 0 || plan.n == 0 ? 0 : batch;
  plan.x_offsets.resize(offsets);
  plan.y_offsets.resize(offsets);
  std::vector<int64_t> index(batch_rank, 0);
  int64_t x_offset = 0;
  int64_t y_offset = 0;
  for (int64_t b = 0; b < offsets; ++b) {
    plan.x_offsets[b] = x_offset;
    plan.y_offsets[b] = y_offset;
    // Odometer step over the broadcast batch index, innermost first.
    for (int i = batch_rank - 1; i >= 0; --i) {
      ++index[i];
      x_offset += x_strides[i];
      y_offset += y_strides[i];
      if (index[i] < batch_dims[i]) break;
      x_offset -= index[i] * x_strides[i];
      y_offset -= index[i] * y_strides[i];
      index[i] = 0;
    }
  }

  plan.out_dims = batch_dims;
  if (!x_vector) plan.out_dims.push_back(plan.m);
  if (!y_vector) plan.out_dims.push_back(plan.n);
  // Both vectors: a dot product, [1] as Paddle <= 2.4 stores it.
  if (plan.out_dims.empty()) plan.out_dims = {1};
  return plan;
}

}  // namespace operators
}  // namespace paddle_lite
