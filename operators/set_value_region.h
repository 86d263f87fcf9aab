// The strided region set_value writes and the shape its value is broadcast
// to (ops.md 9.4), computed once from the op's inputs and attributes by
// both shape inference and the kernels, so the two cannot disagree.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "operators/shape_op_utils.h"

namespace paddle_lite {
namespace operators {

/// Where set_value writes in Input (all vectors have Input's rank): element
/// (i0, i1, ...) of the region is Input[starts[0] + i0 * steps[0], ...].
struct SetValueRegion {
  std::vector<int64_t> starts;
  std::vector<int64_t> steps;
  framework::DDim dims;
  /// `dims` without decrease_axes and with a 1 inserted per none_axes
  /// entry: the shape the value is broadcast to. Same element count and
  /// row-major order as `dims`.
  framework::DDim value_dims;
};

namespace set_value_internal {

// Tensor list > attribute, as Paddle's kernel reads starts, ends, steps.
inline std::vector<int64_t> BoundValues(const framework::ExecutionContext& ctx,
                                        const std::string& list_slot,
                                        const std::string& attr) {
  if (ctx.InputSize(list_slot) == 0) {
    return ctx.Attr<std::vector<int64_t>>(attr);
  }
  std::vector<int64_t> values;
  for (const framework::Tensor* t :
       ctx.MultiInput<framework::Tensor>(list_slot)) {
    PADDLE_ENFORCE(t != nullptr && t->numel() == 1,
                   errors::InvalidArgument(
                       "set_value: every tensor of ", list_slot,
                       " must hold one value, got ",
                       t ? framework::TensorSummary(*t) : "none", "."));
    values.push_back(IntTensorValues(*t, "set_value", list_slot)[0]);
  }
  return values;
}

}  // namespace set_value_internal

/// Validates axes, starts, ends, steps, decrease_axes and none_axes against
/// Input's dims and applies Paddle's normalization (CheckAndUpdateSliceAttrs
/// and GetSliceDims): negative values +D, clamping, a negative step running
/// from start down to end (exclusive; end -1 reaches index 0).
inline SetValueRegion ComputeSetValueRegion(
    const framework::ExecutionContext& ctx) {
  const framework::Tensor* input = ctx.Input<framework::Tensor>("Input");
  PADDLE_ENFORCE_NOT_NULL(
      input, errors::NotFound("set_value: input Input is not bound."));
  const framework::DDim& in_dims = input->dims();
  const int rank = static_cast<int>(in_dims.size());
  const auto axes = ctx.Attr<std::vector<int64_t>>("axes");
  const auto starts =
      set_value_internal::BoundValues(ctx, "StartsTensorList", "starts");
  const auto ends =
      set_value_internal::BoundValues(ctx, "EndsTensorList", "ends");
  auto steps = set_value_internal::BoundValues(ctx, "StepsTensorList", "steps");
  // Files always store steps; an absent list means step 1 everywhere.
  if (steps.empty()) steps.assign(axes.size(), 1);
  PADDLE_ENFORCE(starts.size() == axes.size() && ends.size() == axes.size() &&
                     steps.size() == axes.size(),
                 errors::InvalidArgument("set_value: axes ", axes, ", starts ",
                                         starts, ", ends ", ends, " and steps ",
                                         steps, " must have the same length."));

  SetValueRegion r;
  r.starts.assign(rank, 0);
  r.steps.assign(rank, 1);
  r.dims = in_dims;
  for (size_t i = 0; i < axes.size(); ++i) {
    const int axis = NormalizeAxis(axes[i], rank, "set_value", "axes");
    const int64_t dim = in_dims[axis];
    const int64_t step = steps[i];
    PADDLE_ENFORCE_NE(step, 0,
                      errors::InvalidArgument("set_value: steps ", steps,
                                              " holds 0 for axis ", axis, "."));
    int64_t start = 0;
    int64_t end = 0;
    if (dim > 0) {
      start = starts[i] < 0 ? starts[i] + dim : starts[i];
      start = std::max<int64_t>(start, 0);
      end = step > 0 && ends[i] < 0 ? ends[i] + dim : ends[i];
      end = std::min(end, dim);
      if (step > 0) {
        start = std::min(start, dim);
        end = std::max<int64_t>(end, 0);
        PADDLE_ENFORCE_GE(
            end, start,
            errors::InvalidArgument(
                "set_value: on axis ", axis, " of Input ", in_dims,
                " with step ", step, ", end ", ends[i], " (-> ", end,
                ") comes before start ", starts[i], " (-> ", start, ")."));
      } else {
        start = std::min(start, dim - 1);
        if (end < -1) end += dim;
        end = std::max<int64_t>(end, -1);
        PADDLE_ENFORCE_GE(
            start, end,
            errors::InvalidArgument(
                "set_value: on axis ", axis, " of Input ", in_dims,
                " with negative step ", step, ", start ", starts[i], " (-> ",
                start, ") comes before end ", ends[i], " (-> ", end, ")."));
      }
    }
    // A step past the axis takes `start` alone. Clamped to the axis, it
    // takes the same, and neither the size below nor the kernel's strides
    // (the input's times the step) can overflow.
    const int64_t reach = std::max<int64_t>(dim, 1);
    const int64_t taken = std::clamp(step, -reach, reach);
    r.starts[axis] = start;
    r.steps[axis] = taken;
    r.dims[axis] = taken > 0 ? (end - start + taken - 1) / taken
                             : (end - start + taken + 1) / taken;
  }

  std::vector<bool> decreased(rank, false);
  for (int64_t d : ctx.Attr<std::vector<int64_t>>("decrease_axes")) {
    const int axis = NormalizeAxis(d, rank, "set_value", "decrease_axes");
    PADDLE_ENFORCE_EQ(
        r.dims[axis], 1,
        errors::InvalidArgument("set_value: decrease_axes drops axis ", axis,
                                ", but the region taken from Input ", in_dims,
                                " is ", r.dims, ", of size ", r.dims[axis],
                                " there, not 1."));
    decreased[axis] = true;
  }
  // A none_axes entry k puts a 1 before region dim k (after the last dim
  // when k >= rank), as Paddle's kernel builds the value's shape.
  auto none_axes = ctx.Attr<std::vector<int64_t>>("none_axes");
  std::sort(none_axes.begin(), none_axes.end());
  size_t next_none = 0;
  for (int i = 0; i < rank; ++i) {
    for (; next_none < none_axes.size() && none_axes[next_none] <= i;
         ++next_none) {
      r.value_dims.push_back(1);
    }
    if (!decreased[i]) r.value_dims.push_back(r.dims[i]);
  }
  for (; next_none < none_axes.size(); ++next_none) r.value_dims.push_back(1);
  return r;
}

/// True when a value of dims `value` can be written to a region of dims
/// `target` (Paddle's CheckIsDimsMatch): the value's leading 1s are
/// ignored, the rest aligns with target's trailing dims, each equal or 1.
inline bool SetValueBroadcastable(const framework::DDim& value,
                                  const framework::DDim& target) {
  size_t v0 = 0;
  while (v0 < value.size() && value[v0] == 1) ++v0;
  size_t t0 = 0;
  while (t0 < target.size() && target[t0] == 1) ++t0;
  if (v0 == value.size()) return true;
  if (value.size() - v0 > target.size() - t0) return false;
  for (size_t i = 1; i <= value.size() - v0; ++i) {
    const int64_t v = value[value.size() - i];
    if (v != 1 && v != target[target.size() - i]) return false;
  }
  return true;
}

}  // namespace operators
}  // namespace paddle_lite
