// Makes the order gRPC gives a reactor's callbacks visible to
// ThreadSanitizer.
#pragma once

#include <atomic>

namespace pdlite {
namespace serve {

/// gRPC runs a reactor's constructor before its callbacks and each
/// callback after what it reacts to, but hands them between its threads in
/// code ThreadSanitizer does not see. Entering and leaving each through
/// one atomic (a member of the reactor) makes that order visible to it,
/// for an uncontended atomic add.
class CallbackOrder {
 public:
  explicit CallbackOrder(std::atomic<unsigned>* order) : order_(order) {
    order_->fetch_add(1, std::memory_order_acq_rel);
  }
  ~CallbackOrder() { order_->fetch_add(1, std::memory_order_acq_rel); }
  CallbackOrder(const CallbackOrder&) = delete;
  CallbackOrder& operator=(const CallbackOrder&) = delete;

 private:
  std::atomic<unsigned>* const order_;
};

}  // namespace serve
}  // namespace pdlite
