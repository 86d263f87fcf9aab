// A string-keyed cache whose entries count against the predictor's cache
// budget (platform/cache_budget.h), for the oneDNN primitives and
// reordered weights the kernels of kernels/cpu/mkldnn keep per device
// context. The budget decides what goes: the entries used longest ago,
// whichever cache of the predictor holds them. Private to this folder; it
// has no oneDNN dependency so tests can exercise it directly.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

#include "platform/cache_budget.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

/// Maps keys to shared objects, each counted in `budget` under the cache
/// name `name` with the bytes given at insertion. Values are shared_ptrs,
/// so an evicted object lives on while a caller still holds it. Not
/// thread-safe (one per device context, which runs one op at a time);
/// `budget` must outlive the cache.
class LruCache {
 public:
  LruCache(std::string name, platform::CacheBudget* budget)
      : name_(std::move(name)), budget_(budget) {}
  LruCache(const LruCache&) = delete;
  LruCache& operator=(const LruCache&) = delete;
  ~LruCache() {
    for (auto& kv : index_) budget_->Remove(kv.second.id);
  }

  /// The value under `key` (nullptr if absent); marks it most recently used.
  std::shared_ptr<void> Find(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    budget_->Touch(it->second.id);
    return it->second.value;
  }

  /// Stores `value` under `key` (replacing an older one) as the most
  /// recently used entry of `bytes`; the budget may evict older entries,
  /// of this cache or another, to make room.
  void Insert(const std::string& key,
              std::shared_ptr<void> value,
              size_t bytes) {
    Erase(key);
    // The budget may call Evict on other keys of this cache from Add.
    auto id = budget_->Add(name_, bytes, [this, key] { index_.erase(key); });
    index_[key] = Entry{std::move(value), id, bytes};
  }

  size_t size() const { return index_.size(); }
  size_t bytes() const {
    size_t total = 0;
    for (auto& kv : index_) total += kv.second.bytes;
    return total;
  }

 private:
  struct Entry {
    std::shared_ptr<void> value;
    platform::CacheBudget::EntryId id;
    size_t bytes;
  };
  void Erase(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return;
    budget_->Remove(it->second.id);
    index_.erase(it);
  }

  std::string name_;
  platform::CacheBudget* budget_;
  std::unordered_map<std::string, Entry> index_;
};

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
