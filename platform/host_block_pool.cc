#include "platform/host_block_pool.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <tuple>

#include "platform/address_space.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace platform {

namespace {

constexpr size_t kPage = 4096;

size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

// Gives the pages of [p, p + bytes) back to the system; the range stays
// mapped and reads as zeros when touched again.
void HandBack(char* p, size_t bytes) {
  char* begin =
      reinterpret_cast<char*>(RoundUp(reinterpret_cast<uintptr_t>(p), kPage));
  char* end = reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(p + bytes) /
                                      kPage * kPage);
  if (end > begin) madvise(begin, end - begin, MADV_DONTNEED);
}

}  // namespace

HostBlockPool* HostBlockPool::Create(CacheBudget* budget) {
  return new HostBlockPool(budget);
}

HostBlockPool::HostBlockPool(CacheBudget* budget)
    : budget_(budget),
      max_free_(budget ? budget->limit() / 4 : size_t{64} << 20) {}

HostBlockPool::~HostBlockPool() {
  for (auto& c : chunks_) munmap(c->base, c->reserved);
}

void HostBlockPool::Close() {
  bool gone;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Chunks nothing uses go now; the others with the pool.
    chunks_.erase(std::remove_if(chunks_.begin(), chunks_.end(),
                                 [](const std::unique_ptr<Chunk>& c) {
                                   if (c->used != 0) return false;
                                   munmap(c->base, c->reserved);
                                   return true;
                                 }),
                  chunks_.end());
    reserved_ = nullptr;  // gone, or never to grow again
    HandBackPages();
    if (budget_ != nullptr && counted_) budget_->Remove(budget_id_);
    budget_ = nullptr;
    closed_ = true;
    gone = in_use_ == 0;
  }
  if (gone) delete this;
}

size_t HostBlockPool::free_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return free_resident_;
}

size_t HostBlockPool::chunk_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t total = 0;
  for (auto& c : chunks_) total += c->bytes;
  return total;
}

void HostBlockPool::SetLimits(size_t block_bytes, size_t total_bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  block_limit_ = block_bytes;
  total_limit_ = total_bytes;
}

size_t HostBlockPool::used_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return used_bytes_;
}

void HostBlockPool::CheckLimits(size_t bytes) const {
  PADDLE_ENFORCE(block_limit_ == 0 || bytes <= block_limit_,
                 errors::ResourceExhausted(
                     "needs ", bytes, " bytes, over the limit for one tensor (",
                     block_limit_, " bytes; Config::SetMemoryLimits)."));
  PADDLE_ENFORCE(
      total_limit_ == 0 ||
          bytes <= total_limit_ - std::min(total_limit_, used_bytes_),
      errors::ResourceExhausted(
          "needs ", bytes, " bytes while the run holds ", used_bytes_,
          ", over the limit for a run's memory (", total_limit_,
          " bytes; Config::SetMemoryLimits)."));
}

void* HostBlockPool::AllocateRaw(size_t bytes) { return Take(bytes, true); }

void HostBlockPool::FreeRaw(void* ptr, size_t bytes) {
  Release(ptr, bytes, true);
}

AllocationPtr HostBlockPool::AllocateArena(size_t bytes,
                                           size_t resident_bytes) {
  void* ptr = Take(bytes, false);
  const size_t kept = RoundUp(resident_bytes, kPage);
  if (bytes >= kMinBlock && kept < bytes) {
    HandBack(static_cast<char*>(ptr) + kept, bytes - kept);
  }
  return Own(ptr, bytes, CPUPlace{},
             [this, bytes](void* p) { Release(p, bytes, false); });
}

AllocationPtr HostBlockPool::AllocateKept(size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    PADDLE_ENFORCE(block_limit_ == 0 || bytes <= block_limit_,
                   errors::ResourceExhausted(
                       "a kernel's scratch needs ", bytes,
                       " bytes, over the limit for one tensor (", block_limit_,
                       " bytes; Config::SetMemoryLimits)."));
  }
  return AllocateArena(bytes, bytes);
}

AllocationPtr AllocateKeptHostBuffer(size_t bytes) {
  Allocator* host = GetAllocator(CPUPlace{});
  if (auto* pool = dynamic_cast<HostBlockPool*>(host)) {
    return pool->AllocateKept(bytes);
  }
  return host->Allocate(bytes);
}

void* HostBlockPool::Take(size_t bytes, bool counted) {
  if (bytes < kMinBlock) {
    if (counted) {
      std::lock_guard<std::mutex> lock(mu_);
      CheckLimits(bytes);
    }
    size_t rounded = RoundUp(std::max<size_t>(bytes, 1), 64);
    void* ptr = std::aligned_alloc(64, rounded);
    PADDLE_ENFORCE_NOT_NULL(ptr,
                            errors::ResourceExhausted("Cannot allocate ", bytes,
                                                      " bytes of CPU memory."));
    // Counted in use too: its deleter calls back into this pool.
    std::lock_guard<std::mutex> lock(mu_);
    ++in_use_;
    if (counted) used_bytes_ += bytes;
    return ptr;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (counted) CheckLimits(bytes);
  void* p = TakeBlock(RoundUp(bytes, kPage));
  ++in_use_;
  if (counted) {
    used_bytes_ += bytes;
    peak_used_ = std::max(peak_used_, used_bytes_);
  }
  Account();
  return p;
}

void HostBlockPool::Release(void* ptr, size_t bytes, bool counted) {
  bool gone = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (bytes < kMinBlock) {
      std::free(ptr);
    } else {
      GiveBack(ptr, RoundUp(bytes, kPage));
      if (!closed_) Account();
    }
    --in_use_;
    if (counted) used_bytes_ -= std::min(used_bytes_, bytes);
    gone = closed_ && in_use_ == 0;
  }
  if (gone) delete this;
}

void* HostBlockPool::TakeBlock(size_t size) {
  // Best fit over every chunk's free ranges, preferring ranges whose
  // pages are resident (no page faults).
  Chunk* best_chunk = nullptr;
  std::map<size_t, Range>::iterator best;
  auto warm = [size](const Range& r) { return r.resident >= size; };
  for (auto& c : chunks_) {
    for (auto it = c->free.begin(); it != c->free.end(); ++it) {
      if (it->second.bytes < size) continue;
      if (best_chunk == nullptr || (warm(it->second) && !warm(best->second)) ||
          (warm(it->second) == warm(best->second) &&
           it->second.bytes < best->second.bytes)) {
        best_chunk = c.get();
        best = it;
      }
    }
  }
  if (best_chunk == nullptr) std::tie(best_chunk, best) = Grow(size);
  const size_t offset = best->first;
  const Range range = best->second;
  best_chunk->free.erase(best);
  const size_t taken = std::min(size, range.resident);
  if (range.bytes > size) {
    best_chunk->free.emplace(offset + size,
                             Range{range.bytes - size, range.resident - taken});
  }
  free_resident_ -= taken;
  window_low_free_ = std::min(window_low_free_, free_resident_);
  best_chunk->used += size;
  char* p = best_chunk->base + offset;
  blocks_[p] = {best_chunk, size};
  return p;
}

std::pair<HostBlockPool::Chunk*,
          std::map<size_t, HostBlockPool::Range>::iterator>
HostBlockPool::Grow(size_t size) {
  size_t total = 0;
  for (auto& c : chunks_) total += c->bytes;
  // Grow geometrically so a few steps serve any size.
  const size_t step = RoundUp(std::max({size, kMinChunk, total / 2}), kPage);
  if (!reserve_tried_ && !closed_) {
    reserve_tried_ = true;
    // No access and no commit charge until pages are made usable; a
    // smaller reservation where the system refuses it. None under a limit
    // on the address space (ulimit -v): it would hold what other
    // allocations need (another predictor's pool, malloc's arenas,
    // oneDNN's code) while the pool used little of it, and a predictor
    // failed to allocate 800 KB with 500 MB of its pool's reservation
    // unused.
    for (size_t want = AddressSpaceLimited() ? 0 : kReserveBytes;
         want >= 4 * kMinChunk; want /= 4) {
      void* base = mmap(nullptr, want, PROT_NONE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (base == MAP_FAILED) continue;
      auto chunk = std::make_unique<Chunk>();
      chunk->base = static_cast<char*>(base);
      chunk->bytes = 0;
      chunk->reserved = want;
      reserved_ = chunk.get();
      chunks_.push_back(std::move(chunk));
      break;
    }
  }
  if (reserved_ != nullptr) {
    Chunk* c = reserved_;
    // The free range at the end, if any, joins the new pages.
    size_t tail = 0;
    if (!c->free.empty()) {
      auto last = std::prev(c->free.end());
      if (last->first + last->second.bytes == c->bytes) {
        tail = last->second.bytes;
      }
    }
    const size_t grow = std::max(RoundUp(size - std::min(size, tail), kPage),
                                 std::min(step, c->reserved - c->bytes));
    if (c->bytes + grow <= c->reserved &&
        mprotect(c->base + c->bytes, grow, PROT_READ | PROT_WRITE) == 0) {
      size_t offset = c->bytes;
      Range range{grow, 0};
      if (tail != 0) {
        auto last = std::prev(c->free.end());
        offset = last->first;
        range.bytes += last->second.bytes;
        range.resident = last->second.resident;
        c->free.erase(last);
      }
      c->bytes += grow;
      return {c, c->free.emplace(offset, range).first};
    }
  }
  void* base = mmap(nullptr, step, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  PADDLE_ENFORCE(base != MAP_FAILED,
                 errors::ResourceExhausted("Cannot allocate ", size,
                                           " bytes of CPU memory."));
  auto chunk = std::make_unique<Chunk>();
  chunk->base = static_cast<char*>(base);
  chunk->bytes = step;
  chunk->reserved = step;
  chunk->free.emplace(0, Range{step, 0});
  Chunk* c = chunk.get();
  chunks_.push_back(std::move(chunk));
  return {c, c->free.begin()};
}

void HostBlockPool::GiveBack(void* ptr, size_t size) {
  auto found = blocks_.find(ptr);
  Chunk* chunk = found->second.first;
  blocks_.erase(found);
  chunk->used -= size;
  if (closed_ && chunk->used == 0) {
    munmap(chunk->base, chunk->reserved);
    chunks_.erase(std::find_if(
        chunks_.begin(), chunks_.end(),
        [chunk](const std::unique_ptr<Chunk>& c) { return c.get() == chunk; }));
    return;
  }
  size_t offset = static_cast<char*>(ptr) - chunk->base;
  Range range{size, size};
  if (closed_ || free_resident_ + size > max_free_) {
    HandBack(static_cast<char*>(ptr), size);
    range.resident = 0;
  }
  free_resident_ += range.resident;
  // Merge with the free neighbours.
  auto next = chunk->free.lower_bound(offset);
  if (next != chunk->free.end() && next->first == offset + size) {
    range.bytes += next->second.bytes;
    range.resident += next->second.resident;
    next = chunk->free.erase(next);
  }
  if (next != chunk->free.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second.bytes == offset) {
      range.bytes += prev->second.bytes;
      range.resident += prev->second.resident;
      offset = prev->first;
      chunk->free.erase(prev);
    }
  }
  chunk->free.emplace(offset, range);
}

void HostBlockPool::HandBackPages() {
  for (auto& c : chunks_) {
    for (auto& kv : c->free) {
      if (kv.second.resident == 0) continue;
      HandBack(c->base + kv.first, kv.second.bytes);
      kv.second.resident = 0;
    }
  }
  free_resident_ = 0;
}

size_t HostBlockPool::peak_used_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return peak_used_;
}

void HostBlockPool::KeepResident(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return;
  bytes = std::min(bytes, max_free_);
  if (free_resident_ >= bytes) return;
  // One block over the warm free memory and as much more as is missing
  // (best fit prefers resident ranges; their resident bytes are at their
  // front), populated, then given back whole and resident. Not a run's
  // need: the decay window's low stays as it was.
  const size_t size = RoundUp(bytes, kPage);
  const size_t low = window_low_free_;
  char* p;
  try {
    p = static_cast<char*>(TakeBlock(size));
  } catch (const std::exception&) {
    return;  // no address space to grow into: the runs fault pages in
  }
  // The kernel fills the page tables in one call (Linux 5.14+), cheaper
  // than a fault per page; elsewhere each page is written once.
#ifdef MADV_POPULATE_WRITE
  const bool populated = madvise(p, size, MADV_POPULATE_WRITE) == 0;
#else
  const bool populated = false;
#endif
  if (!populated) {
    for (size_t at = 0; at < size; at += kPage) {
      static_cast<volatile char*>(p)[at] = 0;
    }
  }
  GiveBack(p, size);
  window_low_free_ = low;
  Account();
}

void HostBlockPool::EndOfRun() {
  std::lock_guard<std::mutex> lock(mu_);
  if (++window_runs_ < kDecayRuns) return;
  window_lows_[window_index_] = std::min(window_low_free_, free_resident_);
  window_index_ = (window_index_ + 1) % kDecayWindows;
  window_runs_ = 0;
  window_low_free_ = SIZE_MAX;
  const size_t unneeded =
      *std::min_element(window_lows_, window_lows_ + kDecayWindows);
  // Less than an eighth of what the pool may keep free is not worth the
  // page faults of taking it back when a shape's need returns (a server's
  // mix of batch sizes would make RSS swing by a few MB).
  if (unneeded < max_free_ / 8) return;
  size_t surplus = unneeded;
  // Ranges from the back of each chunk; a range's resident bytes are at
  // its front, so one handed back in part keeps its front.
  for (auto& c : chunks_) {
    for (auto it = c->free.rbegin(); it != c->free.rend() && surplus > 0;
         ++it) {
      Range& r = it->second;
      if (r.resident == 0) continue;
      const size_t keep =
          r.resident > surplus ? RoundUp(r.resident - surplus, kPage) : 0;
      if (keep >= r.bytes) continue;
      HandBack(c->base + it->first + keep, r.bytes - keep);
      const size_t dropped = r.resident - std::min(r.resident, keep);
      r.resident -= dropped;
      free_resident_ -= dropped;
      surplus -= std::min(surplus, dropped);
    }
  }
  // What went is no longer free in any window's count.
  const size_t handed_back = unneeded - surplus;
  for (size_t& low : window_lows_) low -= std::min(low, handed_back);
  if (!closed_) Account();
}

// Called with mu_ held, from any thread (blocks may be freed anywhere):
// the pool never makes the budget evict. The next entry another cache
// adds, or the executor's Trim after a run, evicts the pool's pages first.
void HostBlockPool::Account() {
  if (budget_ == nullptr) return;
  if (!counted_) {
    // First use, or the budget evicted us: count again.
    counted_ = true;
    budget_id_ = budget_->Add(
        "host.pool", free_resident_,
        [this] {
          std::lock_guard<std::mutex> lock(mu_);
          counted_ = false;
          HandBackPages();
        },
        /*as_oldest=*/true, /*may_evict=*/false);
  } else {
    // Not a use: free pages are the first thing to give up.
    budget_->Resize(budget_id_, free_resident_, /*touch=*/false,
                    /*may_evict=*/false);
  }
}

}  // namespace platform
}  // namespace paddle_lite
