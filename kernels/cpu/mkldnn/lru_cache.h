// A string-keyed cache with an entry bound and least-recently-used
// eviction, for the oneDNN primitives and reordered weights the kernels of
// kernels/cpu/mkldnn keep per device context. Private to this folder; it
// has no oneDNN dependency so tests can exercise it directly.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

namespace paddle_lite {
namespace kernels {
namespace mkldnn {

/// Maps keys to shared objects and holds at most `capacity` of them: an
/// insertion into a full cache drops the entry used longest ago, so memory
/// stays bounded however many input shapes a predictor sees. Values are
/// shared_ptrs, so an evicted object lives on while a caller still holds
/// it. Not thread-safe (one per device context, which runs one op at a
/// time).
class LruCache {
 public:
  explicit LruCache(size_t capacity) : capacity_(capacity) {}

  /// The value under `key` (nullptr if absent); marks it most recently used.
  std::shared_ptr<void> Find(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return it->second->second;
  }

  /// Stores `value` under `key` (replacing an older one) as the most
  /// recently used entry, evicting the least recently used beyond capacity.
  void Insert(const std::string& key, std::shared_ptr<void> value) {
    auto it = index_.find(key);
    if (it != index_.end()) {
      it->second->second = std::move(value);
      order_.splice(order_.begin(), order_, it->second);
      return;
    }
    order_.emplace_front(key, std::move(value));
    index_.emplace(key, order_.begin());
    while (order_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
  }

  size_t size() const { return order_.size(); }
  size_t capacity() const { return capacity_; }

 private:
  using Entry = std::pair<std::string, std::shared_ptr<void>>;
  size_t capacity_;
  std::list<Entry> order_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
