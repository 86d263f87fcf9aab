#include "platform/host_block_pool.h"

#include <sys/mman.h>

#include <cstdlib>

#include "platform/enforce.h"

namespace paddle_lite {
namespace platform {

namespace {

// Blocks come straight from mmap, so a released block goes back to the
// system at once (glibc would keep most of them in its heap).
void* MapBlock(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  PADDLE_ENFORCE(p != MAP_FAILED,
                 errors::ResourceExhausted("Cannot allocate ", bytes,
                                           " bytes of CPU memory."));
  return p;
}

void UnmapBlock(void* p, size_t bytes) { munmap(p, bytes); }

}  // namespace

HostBlockPool* HostBlockPool::Create(CacheBudget* budget) {
  return new HostBlockPool(budget);
}

HostBlockPool::HostBlockPool(CacheBudget* budget)
    : budget_(budget),
      max_free_(budget ? budget->limit() / 4 : size_t{64} << 20) {}

HostBlockPool::~HostBlockPool() = default;

void HostBlockPool::Close() {
  bool gone;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ReleaseFree();
    if (budget_ != nullptr && counted_) budget_->Remove(budget_id_);
    budget_ = nullptr;
    closed_ = true;
    gone = in_use_ == 0;
  }
  if (gone) delete this;
}

size_t HostBlockPool::free_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return free_bytes_;
}

size_t HostBlockPool::SizeClass(size_t bytes) {
  size_t top = 1;
  while (top < bytes) top <<= 1;
  const size_t step = top / 8;  // eighths of top: quarters of [top/2, top]
  return (bytes + step - 1) / step * step;
}

void* HostBlockPool::AllocateRaw(size_t bytes) {
  if (bytes < kMinBlock) {
    size_t rounded = (bytes + 63) / 64 * 64;
    if (rounded == 0) rounded = 64;
    void* ptr = std::aligned_alloc(64, rounded);
    PADDLE_ENFORCE_NOT_NULL(ptr,
                            errors::ResourceExhausted("Cannot allocate ", bytes,
                                                      " bytes of CPU memory."));
    // Counted too: its deleter calls back into this pool.
    std::lock_guard<std::mutex> lock(mu_);
    ++in_use_;
    return ptr;
  }
  const size_t size = SizeClass(bytes);
  std::lock_guard<std::mutex> lock(mu_);
  // The smallest free block that fits, unless it would waste more than
  // the request: its pages are already there.
  auto it = free_.lower_bound(size);
  if (it != free_.end() && it->first <= 2 * size) {
    void* p = it->second;
    free_bytes_ -= it->first;
    free_.erase(it);
    ++in_use_;
    Account();
    return p;
  }
  void* p = MapBlock(size);
  sizes_[p] = size;
  ++in_use_;
  return p;
}

void HostBlockPool::FreeRaw(void* ptr, size_t bytes) {
  bool gone = false;
  if (bytes < kMinBlock) {
    std::free(ptr);
    {
      std::lock_guard<std::mutex> lock(mu_);
      --in_use_;
      gone = closed_ && in_use_ == 0;
    }
    if (gone) delete this;
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    --in_use_;
    auto found = sizes_.find(ptr);
    const size_t size = found->second;
    if (closed_ || free_bytes_ + size > max_free_) {
      UnmapBlock(ptr, size);
      sizes_.erase(found);
      gone = closed_ && in_use_ == 0;
    } else {
      free_.emplace(size, ptr);
      free_bytes_ += size;
      Account();
    }
  }
  if (gone) delete this;
}

void HostBlockPool::ReleaseFree() {
  for (auto& kv : free_) {
    UnmapBlock(kv.second, kv.first);
    sizes_.erase(kv.second);
  }
  free_.clear();
  free_bytes_ = 0;
}

void HostBlockPool::Account() {
  if (budget_ == nullptr) return;
  if (!counted_) {
    // First use, or the budget evicted us: count again.
    counted_ = true;
    budget_id_ = budget_->Add("host.pool", free_bytes_, [this] {
      std::lock_guard<std::mutex> lock(mu_);
      counted_ = false;
      ReleaseFree();
    });
  } else {
    // Not a use: free blocks are the first thing to give up.
    budget_->Resize(budget_id_, free_bytes_, /*touch=*/false);
  }
}

}  // namespace platform
}  // namespace paddle_lite
