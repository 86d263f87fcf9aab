#include "serve/byte_budget.h"

namespace pdlite {
namespace serve {

ByteBudget::Lease ByteBudget::TryTake(size_t bytes) {
  size_t held = held_.load();
  do {
    if (bytes > limit_ - held) return Lease();
  } while (!held_.compare_exchange_weak(held, held + bytes));
  return Lease(this, bytes);
}

}  // namespace serve
}  // namespace pdlite
