// Shape inference whose output dims depend on input values (slice bounds,
// interpolation sizes) shares its helpers with the kernels, and those take
// an ExecutionContext. Reading the values through the executor's context
// directly would read device memory when the op's kernel runs on a device,
// and would hide the read from plan replay. This context binds the value
// slots through InferShapeContext::GetInputTensor instead: host copies of
// device values, each read recorded.
#pragma once

#include <initializer_list>
#include <string>

#include "framework/operator.h"
#include "framework/rebound_inputs_context.h"

namespace paddle_lite {
namespace operators {

class ValueInputsContext : public framework::ReboundInputsContext {
 public:
  /// Every tensor of `value_slots` present on the op is read through
  /// `ctx.GetInputTensor`; the other slots are bound as in `ctx`.
  ValueInputsContext(const framework::InferShapeContext& ctx,
                     std::initializer_list<const char*> value_slots)
      : ReboundInputsContext(
            ctx.exec_context(),
            value_slots,
            [&ctx](const std::string& slot,
                   size_t i,
                   const framework::Tensor&,
                   framework::Tensor* replacement) {
              // Shares the buffer of a host tensor; a device tensor's
              // values were copied to the host by GetInputTensor.
              replacement->ShareDataWith(ctx.GetInputTensor(slot, i));
              return true;
            }) {}
};

}  // namespace operators
}  // namespace paddle_lite
