#include "framework/narrow_run_policy.h"

#include <algorithm>

namespace paddle_lite {
namespace framework {

void NarrowRunPolicy::Keep(double ms_per_element) {
  if (!(ms_per_element > 0)) return;  // also NaN
  if (ms_per_element_ < 0 || ms_per_element < ms_per_element_) {
    ms_per_element_ = ms_per_element;
  }
}

void NarrowRunPolicy::RecordOneThread(double run_ms, double elements) {
  Keep(run_ms / std::max(elements, 1.0));
}

void NarrowRunPolicy::RecordAllThreads(double run_ms, double elements) {
  Keep(run_ms * threads_ / std::max(elements, 1.0));
}

double NarrowRunPolicy::OneThreadMs(double elements) const {
  if (ms_per_element_ < 0) return -1;
  return ms_per_element_ * std::max(elements, 1.0);
}

bool NarrowRunPolicy::Narrow(double elements) const {
  if (threads_ <= 1) return false;
  const double ms = OneThreadMs(elements);
  return ms >= 0 && ms < limit_ms_;
}

}  // namespace framework
}  // namespace paddle_lite
