// Large host blocks kept for reuse by one predictor. A run with new input
// shapes (the recording run of a plan) allocates every intermediate anew;
// from the system allocator that means fresh pages (page faults and
// zeroing, about a third of such a run) and, through glibc's heap, memory
// that is never given back as sizes vary. The pool hands out blocks
// freed by earlier runs instead, and its free blocks count in the
// predictor's cache budget, which drops them (back to the system) when it
// needs room.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "platform/allocator.h"
#include "platform/cache_budget.h"

namespace paddle_lite {
namespace platform {

class HostBlockPool : public Allocator {
 public:
  /// Blocks below this go to the CPU allocator as usual.
  static constexpr size_t kMinBlock = size_t{64} << 10;

  /// Made with Create and ended with Close (blocks still in use keep the
  /// pool alive until they are freed).
  static HostBlockPool* Create(CacheBudget* budget);
  /// Frees the free blocks and leaves the budget; the pool deletes itself
  /// once its last block in use comes back. Call once.
  void Close();

  /// Bytes of free blocks held.
  size_t free_bytes() const;

 protected:
  void* AllocateRaw(size_t bytes) override;
  void FreeRaw(void* ptr, size_t bytes) override;
  Place place() const override { return CPUPlace{}; }

 private:
  explicit HostBlockPool(CacheBudget* budget);
  ~HostBlockPool() override;
  // The size blocks of `bytes` are rounded to: a quarter of a power of
  // two (at most 25% more), so that nearby sizes share blocks.
  static size_t SizeClass(size_t bytes);
  void ReleaseFree();  // with mu_ held
  void Account();      // with mu_ held: tells the budget free_bytes_

  mutable std::mutex mu_;
  CacheBudget* budget_;  // null once closed
  CacheBudget::EntryId budget_id_ = 0;
  bool counted_ = false;                     // budget_id_ is in the budget
  std::multimap<size_t, void*> free_;        // by block size
  std::unordered_map<void*, size_t> sizes_;  // every block, free or not
  // Free bytes kept at most (a quarter of the budget): enough for the
  // buffers of a run with new shapes, which come and go within the run.
  const size_t max_free_;
  size_t free_bytes_ = 0;
  size_t in_use_ = 0;  // blocks handed out and not back yet
  bool closed_ = false;
};

}  // namespace platform
}  // namespace paddle_lite
