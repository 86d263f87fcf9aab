// One byte budget for every cache of a predictor that grows with the input
// shapes it sees: execution plans and their arena, oneDNN primitives,
// reordered weights, scratch buffers. Caches register their entries here
// with a size and a way to drop them; when the total passes the limit, the
// entries used longest ago, whichever cache holds them, are dropped until
// it fits. So memory stays flat however many shapes a service sees, and
// room goes to what was used most recently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace paddle_lite {
namespace platform {

class CacheBudget {
 public:
  /// What a predictor gets unless Config::SetCacheBudget says otherwise.
  /// An OCR detector (PP-OCRv3) over 24 sizes up to 928x928 at one thread
  /// holds 185 MB: its arena at 928x928 (61 MB), oneDNN primitives for
  /// every size (87 MB), scratch (31 MB), reordered weights (5 MB) and
  /// plans (1 MB); the rest is for the host pool while new sizes come.
  static constexpr size_t kDefaultBytes = size_t{224} << 20;

  using EntryId = uint64_t;

  explicit CacheBudget(size_t limit_bytes) : limit_(limit_bytes) {}
  CacheBudget(const CacheBudget&) = delete;
  CacheBudget& operator=(const CacheBudget&) = delete;

  /// Counts `bytes` held by `cache` as the most recently used entry and
  /// returns its id. If that passes the limit, older evictable entries are
  /// dropped (their `evict` is called, after this budget stopped counting
  /// them) until the total fits or only unevictable ones remain; the new
  /// entry itself is never dropped by its own Add. A null `evict` makes
  /// the entry unevictable (memory in use that only its owner can free,
  /// still counted). `evict` may call back into this budget. `as_oldest`
  /// puts the entry first in line for eviction instead of last; with
  /// `may_evict` false nothing is evicted now (the total may pass the
  /// limit until the next Add or Trim), which is safe from any thread.
  EntryId Add(const std::string& cache,
              size_t bytes,
              std::function<void()> evict,
              bool as_oldest = false,
              bool may_evict = true);
  /// Marks an entry used now.
  void Touch(EntryId id);
  /// Changes an entry's size (a scratch buffer that grew) and evicts
  /// others if needed; `touch` also marks it used now.
  void Resize(EntryId id,
              size_t bytes,
              bool touch = true,
              bool may_evict = true);
  /// Evicts until the total fits (after entries grew without evicting).
  void Trim();
  /// A pinned entry is never evicted (what the current run uses).
  void SetPinned(EntryId id, bool pinned);
  /// The owner dropped the entry itself: stop counting it (no evict call).
  /// Unknown ids (already evicted) are ignored.
  void Remove(EntryId id);

  size_t limit() const { return limit_; }
  size_t used() const;
  /// Bytes per cache name.
  std::map<std::string, size_t> UsedByCache() const;
  /// Entries dropped to make room since the budget was made.
  uint64_t evictions() const;
  /// Those of every cache but `caches`, counted at once.
  uint64_t EvictionsBesides(std::initializer_list<const char*> caches) const;

 private:
  struct Item {
    EntryId id;
    std::string cache;
    size_t bytes;
    std::function<void()> evict;
    bool pinned = false;
    // Its cache's total in by_cache_ (map values stay put): entries resize
    // at every pool allocation, and a lookup by name cost more than that.
    size_t* cache_bytes = nullptr;
  };
  using ItemList = std::list<Item>;
  // Takes entries other than `keep` out, oldest first, until the total fits;
  // returns their evict callbacks for the caller to run unlocked.
  std::vector<std::function<void()>> TakeVictims(EntryId keep);
  static void Run(std::vector<std::function<void()>>* victims);

  const size_t limit_;
  mutable std::mutex mu_;
  ItemList lru_;  // most recently used first
  std::unordered_map<EntryId, ItemList::iterator> index_;
  std::map<std::string, size_t> by_cache_;
  size_t used_ = 0;
  EntryId next_id_ = 1;
  uint64_t evictions_ = 0;
  std::unordered_map<std::string, uint64_t> evictions_by_cache_;
};

}  // namespace platform
}  // namespace paddle_lite
