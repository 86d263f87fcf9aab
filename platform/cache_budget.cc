#include "platform/cache_budget.h"

#include <utility>
#include <vector>

namespace paddle_lite {
namespace platform {

CacheBudget::EntryId CacheBudget::Add(const std::string& cache,
                                      size_t bytes,
                                      std::function<void()> evict,
                                      bool as_oldest,
                                      bool may_evict) {
  std::vector<std::function<void()>> victims;
  EntryId id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = next_id_++;
    size_t* cache_bytes = &by_cache_[cache];
    evictions_by_cache_.emplace(cache, 0);  // TakeVictims may not allocate
    Item item{id, cache, bytes, std::move(evict), false, cache_bytes};
    auto it = as_oldest ? lru_.insert(lru_.end(), std::move(item))
                        : lru_.insert(lru_.begin(), std::move(item));
    index_.emplace(id, it);
    *cache_bytes += bytes;
    used_ += bytes;
    if (may_evict) victims = TakeVictims(id);
  }
  Run(&victims);
  return id;
}

void CacheBudget::Touch(EntryId id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(id);
  if (it != index_.end()) lru_.splice(lru_.begin(), lru_, it->second);
}

void CacheBudget::Resize(EntryId id, size_t bytes, bool touch, bool may_evict) {
  std::vector<std::function<void()>> victims;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(id);
    if (it == index_.end()) return;
    Item& item = *it->second;
    used_ = used_ - item.bytes + bytes;
    *item.cache_bytes = *item.cache_bytes - item.bytes + bytes;
    item.bytes = bytes;
    if (touch) lru_.splice(lru_.begin(), lru_, it->second);
    if (may_evict) victims = TakeVictims(id);
  }
  Run(&victims);
}

void CacheBudget::Trim() {
  std::vector<std::function<void()>> victims;
  {
    std::lock_guard<std::mutex> lock(mu_);
    victims = TakeVictims(0);
  }
  Run(&victims);
}

void CacheBudget::SetPinned(EntryId id, bool pinned) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(id);
  if (it != index_.end()) it->second->pinned = pinned;
}

void CacheBudget::Remove(EntryId id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(id);
  if (it == index_.end()) return;
  used_ -= it->second->bytes;
  *it->second->cache_bytes -= it->second->bytes;
  lru_.erase(it->second);
  index_.erase(it);
}

size_t CacheBudget::used() const {
  std::lock_guard<std::mutex> lock(mu_);
  return used_;
}

std::map<std::string, size_t> CacheBudget::UsedByCache() const {
  std::lock_guard<std::mutex> lock(mu_);
  return by_cache_;
}

uint64_t CacheBudget::evictions() const {
  std::lock_guard<std::mutex> lock(mu_);
  return evictions_;
}

uint64_t CacheBudget::EvictionsBesides(
    std::initializer_list<const char*> caches) const {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t besides = evictions_;
  for (const char* cache : caches) {
    auto found = evictions_by_cache_.find(cache);
    if (found != evictions_by_cache_.end()) besides -= found->second;
  }
  return besides;
}

std::vector<std::function<void()>> CacheBudget::TakeVictims(EntryId keep) {
  std::vector<std::function<void()>> victims;
  auto it = lru_.end();
  while (used_ > limit_ && it != lru_.begin()) {
    --it;
    if (it->id == keep || !it->evict || it->pinned) continue;
    used_ -= it->bytes;
    *it->cache_bytes -= it->bytes;
    victims.push_back(std::move(it->evict));
    index_.erase(it->id);
    ++evictions_;
    ++evictions_by_cache_.find(it->cache)->second;
    it = lru_.erase(it);
  }
  return victims;
}

void CacheBudget::Run(std::vector<std::function<void()>>* victims) {
  for (auto& evict : *victims) evict();
}

}  // namespace platform
}  // namespace paddle_lite
