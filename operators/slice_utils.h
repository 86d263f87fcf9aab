// The slice op's bounds (ops.md 8.5), computed once from the op's inputs
// and attributes by both shape inference and the kernels, so the two
// cannot disagree.
#pragma once

#include <algorithm>
#include <vector>

#include "operators/shape_op_utils.h"

namespace paddle_lite {
namespace operators {

/// Where `slice` reads and what it produces.
struct SliceBounds {
  /// Per dim of Input: first index taken (0 for dims not sliced).
  std::vector<int64_t> starts;
  /// Dims of the sub-block taken from Input (same rank as Input).
  framework::DDim sliced_dims;
  /// `sliced_dims` without the decrease_axis dims: Out's dims.
  framework::DDim out_dims;
};

namespace slice_internal {

// StartsTensor > StartsTensorList > attribute (same for ends).
inline std::vector<int64_t> SliceValues(const framework::ExecutionContext& ctx,
                                        const std::string& tensor_slot,
                                        const std::string& list_slot,
                                        const std::string& attr) {
  if (ctx.HasInput(tensor_slot)) {
    return IntTensorValues(*ctx.Input<framework::Tensor>(tensor_slot), "slice",
                           tensor_slot);
  }
  if (ctx.HasInput(list_slot) && ctx.InputSize(list_slot) > 0) {
    std::vector<int64_t> values;
    for (const framework::Tensor* t :
         ctx.MultiInput<framework::Tensor>(list_slot)) {
      PADDLE_ENFORCE(t != nullptr && t->numel() == 1,
                     errors::InvalidArgument(
                         "slice: every tensor of ", list_slot,
                         " must hold one value, got ",
                         t ? framework::TensorSummary(*t) : "none", "."));
      values.push_back(IntTensorValues(*t, "slice", list_slot)[0]);
    }
    return values;
  }
  return ctx.Attr<std::vector<int64_t>>(attr);
}

}  // namespace slice_internal

/// Validates axes, starts, ends and decrease_axis against Input's dims and
/// applies Paddle's rules: the x[-1] special case, negative values +D,
/// clamping to [0, D], end >= start. When every dim is decreased Out is
/// [1], what files saved by Paddle <= 2.4 expect (>= 2.5 gives 0-D; the op
/// cannot see the program version).
inline SliceBounds ComputeSliceBounds(const framework::ExecutionContext& ctx) {
  const framework::Tensor* input = ctx.Input<framework::Tensor>("Input");
  PADDLE_ENFORCE_NOT_NULL(input,
                          errors::NotFound("slice: input Input is not bound."));
  const framework::DDim& in_dims = input->dims();
  const int rank = static_cast<int>(in_dims.size());
  const auto axes = ctx.Attr<std::vector<int64_t>>("axes");
  const auto starts = slice_internal::SliceValues(ctx, "StartsTensor",
                                                  "StartsTensorList", "starts");
  const auto ends =
      slice_internal::SliceValues(ctx, "EndsTensor", "EndsTensorList", "ends");
  const auto infer_flags = ctx.Attr<std::vector<int64_t>>("infer_flags");
  const auto decrease = ctx.Attr<std::vector<int64_t>>("decrease_axis");
  PADDLE_ENFORCE(starts.size() == axes.size() && ends.size() == axes.size(),
                 errors::InvalidArgument("slice: axes ", axes, ", starts ",
                                         starts, " and ends ", ends,
                                         " must have the same length."));

  SliceBounds b;
  b.starts.assign(rank, 0);
  b.sliced_dims = in_dims;
  for (size_t i = 0; i < axes.size(); ++i) {
    const int axis = NormalizeAxis(axes[i], rank, "slice", "axes");
    const int64_t dim = in_dims[axis];
    int64_t start = starts[i];
    int64_t end = ends[i];
    // x[-1] is saved as start -1, end 0 with the end left to run time.
    if (start == -1 && end == 0 && i < infer_flags.size() &&
        infer_flags[i] == -1 &&
        std::find(decrease.begin(), decrease.end(), axes[i]) !=
            decrease.end()) {
      end = dim;
    }
    if (start < 0) start += dim;
    start = std::clamp<int64_t>(start, 0, dim);
    if (end < 0) end += dim;
    end = std::clamp<int64_t>(end, 0, dim);
    // An end before the start is an empty range, as in Python and Paddle
    // 3 (2.x refused it; a program it ran never has one).
    b.starts[axis] = start;
    b.sliced_dims[axis] = std::max<int64_t>(end - start, 0);
  }

  std::vector<bool> drop(rank, false);
  for (int64_t d : decrease) {
    const int axis = NormalizeAxis(d, rank, "slice", "decrease_axis");
    PADDLE_ENFORCE_EQ(
        b.sliced_dims[axis], 1,
        errors::InvalidArgument(
            "slice: decrease_axis ", decrease, " drops axis ", axis,
            ", but its size after slicing Input ", in_dims, " is ",
            b.sliced_dims[axis], ", not 1 (sliced dims ", b.sliced_dims, ")."));
    drop[axis] = true;
  }
  for (int i = 0; i < rank; ++i) {
    if (!drop[i]) b.out_dims.push_back(b.sliced_dims[i]);
  }
  if (b.out_dims.empty() && !decrease.empty()) b.out_dims = {1};
  return b;
}

/// What a kernel checks before writing Out: shape inference sized it for
/// as many elements as these bounds take. A mismatch (a framework fault)
/// would otherwise write past Out's buffer.
inline void CheckSliceOutput(const framework::Tensor& out,
                             const SliceBounds& bounds) {
  PADDLE_ENFORCE(out.numel() == framework::Product(bounds.sliced_dims),
                 errors::PreconditionNotMet("slice: Out was sized ", out.dims(),
                                            " but its inputs now take ",
                                            bounds.sliced_dims));
}

}  // namespace operators
}  // namespace paddle_lite
