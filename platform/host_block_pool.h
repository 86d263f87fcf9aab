// Host memory of one predictor's runs, kept for reuse. A run with new
// input shapes (the recording run of a plan) allocates every intermediate
// anew; from the system allocator that means fresh pages (page faults and
// zeroing, about a third of such a run) and, through glibc's heap, memory
// that is never given back as sizes vary. The pool carves blocks out of a
// few large chunks instead (best fit, neighbours merged when freed), so
// a run with new shapes writes into pages earlier runs already touched.
// The first chunk is one reserved range of address space whose pages are
// made usable as the pool grows: what a recording run freed then merges
// into one range, and the arena its plan asks for next (one block as
// large as the whole run's need) lies on those warm pages. With separate
// mappings no free range was that large, and the first replay of a large
// new shape faulted its whole arena in anew (ppocr_det_ch_v3 at 928x928,
// 2 threads: 11,748 faults, 73 ms against 48 once warm).
// Its free bytes count in the predictor's cache budget; evicting them
// hands the pages back to the system (the address space stays).
#pragma once

#include <cstddef>
#include <cstdint>
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
  /// Blocks below this go to aligned_alloc as usual. A page: blocks come
  /// in whole pages. With 64 KB here, a small shape's intermediates (most
  /// under 64 KB) came from glibc's heap, which had given back the pages
  /// that larger shapes' runs freed: a classifier's narrow width then
  /// faulted in 90-120 pages, a third of its first run.
  static constexpr size_t kMinBlock = size_t{4} << 10;
  /// Chunks are at least this large (and as large as the request).
  static constexpr size_t kMinChunk = size_t{16} << 20;
  /// Address space the first chunk reserves (no memory until used; a
  /// smaller one where the system refuses it, none under a limit on the
  /// address space, ulimit -v). Growth past it maps separate chunks.
  static constexpr size_t kReserveBytes = size_t{8} << 30;

  /// Made with Create and ended with Close (blocks still in use keep the
  /// pool alive until they are freed).
  static HostBlockPool* Create(CacheBudget* budget);
  /// Frees what is free and leaves the budget; the pool deletes itself
  /// once its last block in use comes back. Call once.
  void Close();

  /// Free bytes whose pages are resident (what the budget counts).
  size_t free_bytes() const;
  /// Bytes of all chunks (of the reserved one, those made usable).
  size_t chunk_bytes() const;
  /// Limits checked before each allocation (0: none): `block_bytes` for
  /// any one block (a tensor), `total_bytes` for all blocks in use at
  /// once. A request past either throws ResourceExhausted and allocates
  /// nothing.
  void SetLimits(size_t block_bytes, size_t total_bytes);
  /// Bytes of the blocks in use (arenas aside).
  size_t used_bytes() const;
  /// A plan's arena: one block for the tensors of runs that passed the
  /// limits when they were recorded, and that its replays lay out the
  /// same. Neither limit applies to it (it is no one tensor), nor does it
  /// count as held by a run. Counted, the arena (with its headroom) made
  /// the second run of a shape fail where its first had passed, and a
  /// cached plan's arena made a shape that runs alone fail after another
  /// shape had run. Pages past the first `resident_bytes` (headroom no run
  /// writes yet) are handed back: the block may lie on pages the pool had
  /// resident, which it stops counting as it gives the block, and the
  /// budget counts only what runs use.
  AllocationPtr AllocateArena(size_t bytes, size_t resident_bytes);
  /// A buffer kept from run to run (AllocateKeptHostBuffer): held to the
  /// limit for one block, and, like an arena, not counted as a run's.
  AllocationPtr AllocateKept(size_t bytes);

  /// Runs per decay window, and windows remembered (EndOfRun).
  static constexpr int kDecayRuns = 16;
  static constexpr int kDecayWindows = 4;
  /// Called after each run. At the end of every window of kDecayRuns runs,
  /// the free resident bytes that no run of the last kDecayWindows windows
  /// needed (the lowest the free resident bytes went in each) go back to
  /// the system, when they are at least an eighth of the free bytes the
  /// pool may keep. So what a burst of new shapes left warm does not stay
  /// resident while later runs replay their plans, and what recent runs
  /// did take stays warm rather than faulted in again window after window.
  void EndOfRun();
  /// Makes free pages resident (populated now, not faulted in by a run)
  /// until `bytes` of the free memory are, or as much as the pool may keep
  /// free. For the end of a predictor's warm-up at load: a first real input
  /// larger than the warm-up's then writes into pages already there. Best
  /// effort: where the pool cannot grow, it does nothing (never throws).
  void KeepResident(size_t bytes);
  /// The most bytes of blocks in use at once, since the pool was made.
  size_t peak_used_bytes() const;

 protected:
  void* AllocateRaw(size_t bytes) override;
  void FreeRaw(void* ptr, size_t bytes) override;
  Place place() const override { return CPUPlace{}; }

 private:
  struct Range {
    size_t bytes;
    // How many of its bytes may have resident pages (not handed back):
    // an estimate once ranges merge, taken from the front when split.
    size_t resident;
  };
  struct Chunk {
    char* base;
    size_t bytes;     // usable, from base
    size_t reserved;  // mapped address space (bytes or more)
    size_t used = 0;
    std::map<size_t, Range> free;  // by offset
  };

  explicit HostBlockPool(CacheBudget* budget);
  ~HostBlockPool() override;
  void* TakeBlock(size_t size);  // with mu_ held
  // Makes room for `size` bytes at the end of the reserved chunk, or maps
  // a chunk of its own; returns the free range that fits. With mu_ held.
  std::pair<Chunk*, std::map<size_t, Range>::iterator> Grow(size_t size);
  void GiveBack(void* ptr, size_t size);  // with mu_ held
  void HandBackPages();                   // with mu_ held
  void Account();                         // with mu_ held
  void CheckLimits(size_t bytes) const;   // with mu_ held; throws
  // Allocates `bytes`, checked against the limits and counted in
  // used_bytes_ when `counted` (a tensor's), not otherwise (an arena's);
  // Release frees it the same way.
  void* Take(size_t bytes, bool counted);
  void Release(void* ptr, size_t bytes, bool counted);

  mutable std::mutex mu_;
  CacheBudget* budget_;  // null once closed
  CacheBudget::EntryId budget_id_ = 0;
  bool counted_ = false;  // budget_id_ is in the budget
  std::vector<std::unique_ptr<Chunk>> chunks_;
  Chunk* reserved_ = nullptr;  // the chunk that grows in place, if any
  bool reserve_tried_ = false;
  std::unordered_map<void*, std::pair<Chunk*, size_t>> blocks_;  // in use
  size_t free_resident_ = 0;
  // The decay window (EndOfRun): runs so far, and the lowest free_resident_
  // has been right after a block was taken in it (none taken: all of it
  // was surplus).
  int window_runs_ = 0;
  size_t window_low_free_ = SIZE_MAX;
  // The lows of the last windows (bytes not yet handed back), a ring; the
  // pool's first windows count as needing everything.
  size_t window_lows_[kDecayWindows] = {};
  int window_index_ = 0;
  size_t in_use_ = 0;      // blocks handed out (small ones too)
  size_t used_bytes_ = 0;  // their requested bytes
  size_t peak_used_ = 0;   // the most used_bytes_ has been
  size_t block_limit_ = 0;
  size_t total_limit_ = 0;
  bool closed_ = false;
  // Resident free bytes kept at most (a quarter of the budget); past it,
  // freed pages go back to the system at once.
  const size_t max_free_;
};

}  // namespace platform
}  // namespace paddle_lite
