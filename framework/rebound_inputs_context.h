// An op's ExecutionContext with the tensors of some input slots bound to
// others: helpers written against ExecutionContext (slice bounds,
// interpolation sizes) then read those instead, such as host copies of
// values that live on a device (operators/value_inputs_context.h for shape
// inference, kernels/cuda/plain/host_values_util.h for CUDA kernels).
#pragma once

#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "framework/operator.h"
#include "framework/variable.h"

namespace paddle_lite {
namespace framework {

class ReboundInputsContext {
 public:
  /// Called for tensor `i` of a rebound slot: fills `*replacement` and
  /// returns true to bind it instead, or returns false to keep `tensor`.
  using Rebind = std::function<bool(const std::string& slot,
                                    size_t i,
                                    const Tensor& tensor,
                                    Tensor* replacement)>;

  /// Every slot of `ctx`'s op as bound there, except that each tensor of
  /// `slots` goes through `rebind`.
  ReboundInputsContext(const ExecutionContext& ctx,
                       std::initializer_list<const char*> slots,
                       const Rebind& rebind) {
    for (const auto& slot : ctx.op().Inputs()) {
      std::vector<Variable*> vars = ctx.InputVars(slot.first);
      bool wanted = false;
      for (const char* s : slots) wanted = wanted || slot.first == s;
      for (size_t i = 0; wanted && i < vars.size(); ++i) {
        if (vars[i] == nullptr || !vars[i]->IsType<Tensor>()) continue;
        auto replacement = std::make_unique<Variable>();
        if (!rebind(slot.first, i, vars[i]->Get<Tensor>(),
                    replacement->GetMutable<Tensor>())) {
          continue;
        }
        vars[i] = replacement.get();
        replacements_.push_back(std::move(replacement));
      }
      runtime_.inputs.emplace_back(slot.first, std::move(vars));
    }
    for (const auto& slot : ctx.op().Outputs()) {
      runtime_.outputs.emplace_back(slot.first, ctx.OutputVars(slot.first));
    }
    context_ = std::make_unique<ExecutionContext>(
        ctx.op(), ctx.scope(), ctx.device_context<platform::DeviceContext>(),
        runtime_);
  }

  ReboundInputsContext(const ReboundInputsContext&) = delete;
  ReboundInputsContext& operator=(const ReboundInputsContext&) = delete;

  const ExecutionContext& context() const { return *context_; }
  /// How many tensors were rebound.
  size_t rebound() const { return replacements_.size(); }

 private:
  std::vector<std::unique_ptr<Variable>> replacements_;
  RuntimeContext runtime_;
  std::unique_ptr<ExecutionContext> context_;
};

}  // namespace framework
}  // namespace paddle_lite
