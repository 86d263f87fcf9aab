// Helpers shared by the shape-manipulation ops (reshape2, squeeze2, slice,
// split, fill_constant, ...): reading int32/int64 shape tensors, Paddle's
// axis convention and the LoD rule of reshape-like ops.
#pragma once

#include <string>
#include <vector>

#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

/// The values of a host int32 or int64 tensor, widened to int64. Throws
/// InvalidArgument naming `op` and `slot` for any other element type.
inline std::vector<int64_t> IntTensorValues(const framework::Tensor& t,
                                            const std::string& op,
                                            const std::string& slot) {
  std::vector<int64_t> values;
  values.reserve(static_cast<size_t>(t.numel()));
  if (t.dtype() == framework::DataType::kInt32) {
    const int32_t* data = t.data<int32_t>();
    values.assign(data, data + t.numel());
  } else if (t.dtype() == framework::DataType::kInt64) {
    const int64_t* data = t.data<int64_t>();
    values.assign(data, data + t.numel());
  } else {
    PADDLE_THROW(errors::InvalidArgument(
        op, ": input ", slot, " must be an int32 or int64 tensor, got ",
        framework::TensorSummary(t), "."));
  }
  return values;
}

/// True when input `slot` is bound to at least one existing variable.
inline bool HasTensorInput(const framework::InferShapeContext& ctx,
                           const std::string& slot) {
  return ctx.HasInput(slot) && ctx.exec_context().InputSize(slot) > 0;
}

/// The values of a 1-D shape tensor input (all of it).
inline std::vector<int64_t> IntInputValues(
    const framework::InferShapeContext& ctx, const std::string& slot) {
  return IntTensorValues(ctx.GetInputTensor(slot), ctx.op().Type(), slot);
}

/// The values of a duplicable input whose every tensor holds one int32 or
/// int64 value (ShapeTensor, StartsTensorList, ...), one per tensor.
inline std::vector<int64_t> IntListInputValues(
    const framework::InferShapeContext& ctx, const std::string& slot) {
  std::vector<int64_t> values;
  size_t count = ctx.exec_context().InputSize(slot);
  for (size_t i = 0; i < count; ++i) {
    const framework::Tensor& t = ctx.GetInputTensor(slot, i);
    PADDLE_ENFORCE_EQ(
        t.numel(), 1,
        errors::InvalidArgument(ctx.op().Type(), ": every tensor of input ",
                                slot, " must hold one value, but tensor ", i,
                                " is ", framework::TensorSummary(t), "."));
    values.push_back(IntTensorValues(t, ctx.op().Type(), slot)[0]);
  }
  return values;
}

/// `axis` with a negative value counted from the end (+rank); throws
/// InvalidArgument unless it lies in [-rank, rank).
inline int NormalizeAxis(int64_t axis,
                         int rank,
                         const std::string& op,
                         const std::string& attr) {
  PADDLE_ENFORCE(axis >= -rank && axis < rank,
                 errors::InvalidArgument(op, ": ", attr, " = ", axis,
                                         " is out of range for a rank-", rank,
                                         " input; expected a value in [", -rank,
                                         ", ", rank, ")."));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

/// Sets Out of an op that only reinterprets X's dims (reshape2, squeeze2,
/// flatten2, ...). Paddle keeps X's LoD only when dim 0 is unchanged; the
/// LoD is cleared otherwise so no stale offsets survive from a previous run.
inline void SetReshapeLikeOutput(framework::InferShapeContext* ctx,
                                 const framework::DDim& x_dims,
                                 const framework::DDim& out_dims) {
  ctx->SetOutputDim("Out", out_dims);
  if (!x_dims.empty() && !out_dims.empty() && x_dims[0] == out_dims[0]) {
    ctx->ShareLoD("X", "Out");
  } else {
    ctx->SetOutputLoD("Out", {});
  }
}

}  // namespace operators
}  // namespace paddle_lite
