#include "framework/first_sight_policy.h"

#include <algorithm>

namespace paddle_lite {
namespace framework {

void FirstSightPolicy::Average::Add(double run_ms, double run_elements) {
  run_elements = std::max(run_elements, 1.0);
  if (!seen) {
    ms = run_ms;
    elements = run_elements;
    seen = true;
    return;
  }
  ms = kDecay * ms + (1 - kDecay) * run_ms;
  elements = kDecay * elements + (1 - kDecay) * run_elements;
}

void FirstSightPolicy::RecordSpecialised(double run_ms,
                                         double making_ms,
                                         double elements) {
  first_runs_.Add(run_ms, elements);
  // Until a made run is timed, the run less its making stands for one.
  if (!made_runs_.seen || made_estimated_) {
    made_runs_.Add(std::max(run_ms - making_ms, 0.0), elements);
    made_estimated_ = true;
  }
  Decide();
}

void FirstSightPolicy::RecordMade(double run_ms, double elements) {
  if (made_estimated_) made_runs_ = Average{};
  made_estimated_ = false;
  made_runs_.Add(run_ms, elements);
  Decide();
}

void FirstSightPolicy::Decide() {
  if (wants_generic_ || !first_runs_.seen || !made_runs_.seen) return;
  wants_generic_ =
      made_runs_.PerElement() <= (1 - kTryShare) * first_runs_.PerElement() ||
      (generic_.seen && generic_.PerElement() < first_runs_.PerElement());
}

void FirstSightPolicy::RecordGeneric(double run_ms, double elements) {
  generic_.Add(run_ms, elements);
  Decide();
}

void FirstSightPolicy::RecordSameShape(double generic_ms, double made_ms) {
  const double ratio = generic_ms / std::max(made_ms, 1e-6);
  same_shape_ratio_ = same_shape_seen_
                          ? kDecay * same_shape_ratio_ + (1 - kDecay) * ratio
                          : ratio;
  same_shape_seen_ = true;
}

bool FirstSightPolicy::GenericForGood() const {
  if (!wants_generic_) return false;
  if (same_shape_seen_) return same_shape_ratio_ <= kForGood;
  if (!generic_.seen || !made_runs_.seen) return true;
  return generic_.PerElement() <= kForGood * made_runs_.PerElement();
}

bool FirstSightPolicy::GenericWhileMaking() const {
  if (!wants_generic_) return false;
  if (!generic_.seen || !first_runs_.seen) return true;
  return generic_.PerElement() < first_runs_.PerElement();
}

bool FirstSightPolicy::RetryGeneric() {
  if (!wants_generic_) return false;
  if (++declined_ < kRetryEvery) return false;
  declined_ = 0;
  return true;
}

}  // namespace framework
}  // namespace paddle_lite
