// A run that only makes kernels' primitives. When an input shape is new, a
// predictor may run a clone of itself on another thread with this flag
// set, ahead of the real run, so that the real run finds the shape's
// oneDNN primitives made (oneDNN's process-wide primitive cache hands
// them over). Kernels that honour it make what they would make and skip
// their computation and copies; the outputs of such a run are garbage.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "framework/scope.h"
#include "framework/tensor.h"
#include "framework/variable.h"
#include "platform/place.h"

namespace paddle_lite {
namespace framework {

namespace internal {
inline thread_local bool making_only = false;
// Nanoseconds this thread spent making per-shape objects (MakingTime).
inline thread_local int64_t making_ns = 0;
// Set once a predictor hands primitives over through oneDNN's cache, which
// must then stay on (MkldnnContext turns it off otherwise).
inline std::atomic<bool> primitive_handover{false};
}  // namespace internal

/// Whether some predictor makes primitives ahead through oneDNN's cache.
inline bool PrimitiveHandover() { return internal::primitive_handover; }

/// True on a thread running a program only to make its primitives.
inline bool MakingOnly() { return internal::making_only; }

/// Time the calling thread has spent making objects kernels keep per input
/// shape (oneDNN primitives and reordered weights), in nanoseconds since
/// it started. Kernels add what they spend; the predictor reads it around
/// a run to learn how much of a new shape's first run was making.
inline int64_t MakingTime() { return internal::making_ns; }
inline void AddMakingTime(int64_t ns) { internal::making_ns += ns; }

/// What a kernel that computes nothing leaves in its output `var` (if a
/// tensor): memory of its inferred dims in plain layout, unwritten (its
/// pages untouched), so the ops after it can make their primitives.
inline void GiveUnwrittenMemory(Variable* var,
                                const platform::Place& place,
                                DataType type) {
  if (var == nullptr || !var->IsType<Tensor>()) return;
  Tensor* t = var->GetMutable<Tensor>();
  t->set_opaque_layout(nullptr);
  t->mutable_data(place, type);
}

/// GiveUnwrittenMemory for an op's output `var` named `name`, unless it is
/// a weight the predictors share (batch_norm's MeanOut names its Mean):
/// others read that meanwhile.
inline void GiveUnwrittenMemoryToOutput(const Scope& scope,
                                        const std::string& name,
                                        Variable* var,
                                        const platform::Place& place,
                                        DataType type) {
  if (scope.IsRootVariable(name, var)) return;
  GiveUnwrittenMemory(var, place, type);
}

/// Sets MakingOnly() on this thread for its lifetime.
class MakeOnlyScope {
 public:
  MakeOnlyScope() : was_(internal::making_only) {
    internal::making_only = true;
  }
  ~MakeOnlyScope() { internal::making_only = was_; }
  MakeOnlyScope(const MakeOnlyScope&) = delete;
  MakeOnlyScope& operator=(const MakeOnlyScope&) = delete;

 private:
  bool was_;
};

}  // namespace framework
}  // namespace paddle_lite
