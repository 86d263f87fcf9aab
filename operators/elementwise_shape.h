// The broadcast rule of Paddle's element-wise binary ops (elementwise_add,
// _sub, _mul, _div and the comparisons), ops.md section 6.1. Shared by the
// op definitions (shape inference) and their kernels (index mapping).
#pragma once

#include <algorithm>
#include <cstdlib>
#include <string>

#include "framework/ddim.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace operators {

/// X and Y aligned to the output's rank, and the output dims.
struct ElementwiseBroadcast {
  framework::DDim x;    ///< X's dims padded with 1s to rank(out).
  framework::DDim y;    ///< Y's dims padded with 1s to rank(out).
  framework::DDim out;  ///< Per dim: the non-1 size of the pair (or 1).
};

/// Applies Paddle 2.x's rule: the lower-rank operand (X or Y) is placed at
/// dims [a, a + its rank) of the other, where a = |rank(X) - rank(Y)| for
/// axis == -1 (NumPy right alignment), a = axis for axis >= 0 and
/// a = axis + |rank(X) - rank(Y)| + 1 for other negative values; the
/// remaining dims are 1. Each aligned pair must then be equal or contain a
/// 1. Throws InvalidArgument naming `op_type`, both shapes and the axis.
inline ElementwiseBroadcast BroadcastElementwiseDims(const std::string& op_type,
                                                     const framework::DDim& x,
                                                     const framework::DDim& y,
                                                     int axis) {
  ElementwiseBroadcast result;
  // Equal shapes need no alignment, whatever the axis (Paddle skips the
  // axis checks in this case too).
  if (x == y) {
    result.x = result.y = result.out = x;
    return result;
  }
  const int rank_x = static_cast<int>(x.size());
  const int rank_y = static_cast<int>(y.size());
  const int max_rank = std::max(rank_x, rank_y);
  const int diff = std::abs(rank_x - rank_y);
  if (rank_x == rank_y) {
    PADDLE_ENFORCE(axis == -1 || axis == 0,
                   errors::InvalidArgument(
                       op_type, ": axis must be -1 or 0 when X ", x, " and Y ",
                       y, " have the same rank, but axis is ", axis, "."));
  }
  PADDLE_ENFORCE(axis >= -max_rank && axis < max_rank,
                 errors::InvalidArgument(
                     op_type, ": axis ", axis, " is out of range [", -max_rank,
                     ", ", max_rank, ") for X ", x, " and Y ", y, "."));
  const int start = axis < 0 ? axis + diff + 1 : axis;
  PADDLE_ENFORCE(
      start >= 0 && start <= diff,
      errors::InvalidArgument(
          op_type, ": axis ", axis,
          " does not fit the lower-rank operand inside the other: "
          "X ",
          x, ", Y ", y, " (valid axis values: -1 and 0 to ", diff, ")."));

  const bool x_is_big = rank_x >= rank_y;
  const framework::DDim& big = x_is_big ? x : y;
  const framework::DDim& small = x_is_big ? y : x;
  framework::DDim padded(max_rank, 1);
  std::copy(small.begin(), small.end(), padded.begin() + start);
  result.x = x_is_big ? big : padded;
  result.y = x_is_big ? padded : big;
  result.out.resize(max_rank);
  for (int i = 0; i < max_rank; ++i) {
    const int64_t dx = result.x[i];
    const int64_t dy = result.y[i];
    PADDLE_ENFORCE(
        dx == dy || dx == 1 || dy == 1,
        errors::InvalidArgument(op_type, ": X ", x, " and Y ", y,
                                " cannot be broadcast together (axis ", axis,
                                "): aligned dim ", i, " is ", dx, " in X and ",
                                dy, " in Y; sizes must be equal or 1."));
    result.out[i] = dx == 1 ? dy : dx;
  }
  return result;
}

}  // namespace operators
}  // namespace paddle_lite
