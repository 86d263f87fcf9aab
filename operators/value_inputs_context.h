// Shape inference whose output dims depend on input values (slice bounds,
// interpolation sizes) shares its helpers with the kernels, and those take
// an ExecutionContext. Reading the values through the executor's context
// directly would read device memory when the op's kernel runs on a device,
// and would hide the read from plan replay. This context binds the value
// slots through InferShapeContext::GetInputTensor instead: host copies of
// device values, each read recorded.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "framework/operator.h"
#include "framework/variable.h"

namespace paddle_lite {
namespace operators {

class ValueInputsContext {
 public:
  /// Every tensor of `value_slots` present on the op is read through
  /// `ctx.GetInputTensor`; the other slots are bound as in `ctx`.
  ValueInputsContext(const framework::InferShapeContext& ctx,
                     std::initializer_list<const char*> value_slots);

  ValueInputsContext(const ValueInputsContext&) = delete;
  ValueInputsContext& operator=(const ValueInputsContext&) = delete;

  const framework::ExecutionContext& context() const { return *context_; }

 private:
  std::vector<std::unique_ptr<framework::Variable>> host_vars_;
  framework::RuntimeContext runtime_;
  std::unique_ptr<framework::ExecutionContext> context_;
};

inline ValueInputsContext::ValueInputsContext(
    const framework::InferShapeContext& ctx,
    std::initializer_list<const char*> value_slots) {
  const framework::ExecutionContext& exec = ctx.exec_context();
  for (const auto& slot : exec.op().Inputs()) {
    std::vector<framework::Variable*> vars = exec.InputVars(slot.first);
    bool wanted = false;
    for (const char* s : value_slots) wanted = wanted || slot.first == s;
    for (size_t i = 0; wanted && i < vars.size(); ++i) {
      if (vars[i] == nullptr || !vars[i]->IsType<framework::Tensor>()) {
        continue;
      }
      // Shares the buffer of a host tensor; a device tensor's values were
      // copied to the host by GetInputTensor.
      host_vars_.push_back(std::make_unique<framework::Variable>());
      host_vars_.back()->GetMutable<framework::Tensor>()->ShareDataWith(
          ctx.GetInputTensor(slot.first, i));
      vars[i] = host_vars_.back().get();
    }
    runtime_.inputs.emplace_back(slot.first, std::move(vars));
  }
  for (const auto& slot : exec.op().Outputs()) {
    runtime_.outputs.emplace_back(slot.first, exec.OutputVars(slot.first));
  }
  context_ = std::make_unique<framework::ExecutionContext>(
      exec.op(), exec.scope(), exec.device_context<platform::DeviceContext>(),
      runtime_);
}

}  // namespace operators
}  // namespace paddle_lite
