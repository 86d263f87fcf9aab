#include "platform/allocator.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "platform/enforce.h"

namespace paddle_lite {
namespace platform {

AllocationPtr Allocator::Allocate(size_t bytes) {
  // A pool's counts (and run limit) go back with the block too.
  return Own(AllocateRaw(bytes), bytes, place(),
             [this, bytes](void* ptr) { FreeRaw(ptr, bytes); });
}

AllocationPtr Allocator::Own(void* ptr,
                             size_t bytes,
                             const Place& where,
                             std::function<void(void*)> release) {
  Allocation* allocation = nullptr;
  try {
    allocation = new Allocation(ptr, bytes, where);
  } catch (...) {
    release(ptr);
    throw;
  }
  // Should the shared_ptr's own block fail, it calls the deleter.
  return AllocationPtr(allocation,
                       [release = std::move(release)](Allocation* a) {
                         release(a->ptr());
                         delete a;
                       });
}

void* CPUAllocator::AllocateRaw(size_t bytes) {
  // aligned_alloc wants a size that is a multiple of the alignment; never 0
  // so that empty tensors still have a distinct non-null pointer.
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded == 0) rounded = kAlignment;
  void* ptr = std::aligned_alloc(kAlignment, rounded);
  PADDLE_ENFORCE_NOT_NULL(ptr,
                          errors::ResourceExhausted("Cannot allocate ", bytes,
                                                    " bytes of CPU memory."));
  return ptr;
}

void CPUAllocator::FreeRaw(void* ptr, size_t) { std::free(ptr); }

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, AllocatorFactory> factories;
  std::map<std::pair<std::string, std::string>, MemcpyFn> copies;
};

Registry& GetRegistry() {
  // Leaked on purpose: allocations may be freed during static destruction.
  static Registry* registry = [] {
    auto* r = new Registry;
    r->factories["cpu"] = [](const Place&) -> Allocator* {
      static CPUAllocator* cpu = new CPUAllocator;
      return cpu;
    };
    return r;
  }();
  return *registry;
}

}  // namespace

void RegisterAllocatorFactory(const std::string& place_kind,
                              AllocatorFactory factory) {
  auto& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  PADDLE_ENFORCE(r.factories.count(place_kind) == 0,
                 errors::AlreadyExists("An allocator for place kind '",
                                       place_kind, "' is already registered."));
  r.factories[place_kind] = std::move(factory);
}

void UnregisterAllocatorFactory(const std::string& place_kind) {
  auto& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.factories.erase(place_kind);
}

namespace {
thread_local Allocator* host_override = nullptr;
}  // namespace

ScopedHostAllocator::ScopedHostAllocator(Allocator* allocator)
    : previous_(host_override) {
  host_override = allocator;
}

ScopedHostAllocator::~ScopedHostAllocator() { host_override = previous_; }

Allocator* GetAllocator(const Place& place) {
  if (host_override != nullptr && place.is_cpu()) return host_override;
  auto& r = GetRegistry();
  AllocatorFactory factory;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.factories.find(place.KindName());
    PADDLE_ENFORCE(
        it != r.factories.end(),
        errors::NotFound("No allocator is registered for place ", place,
                         ": the device's plugin must register one "
                         "(platform::RegisterAllocatorFactory)."));
    factory = it->second;
  }
  return factory(place);
}

void RegisterMemcpy(const std::string& src_kind,
                    const std::string& dst_kind,
                    MemcpyFn fn) {
  auto& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto key = std::make_pair(src_kind, dst_kind);
  PADDLE_ENFORCE(r.copies.count(key) == 0,
                 errors::AlreadyExists("A copy from '", src_kind, "' to '",
                                       dst_kind, "' is already registered."));
  r.copies[key] = std::move(fn);
}

void UnregisterMemcpy(const std::string& src_kind,
                      const std::string& dst_kind) {
  auto& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.copies.erase(std::make_pair(src_kind, dst_kind));
}

void Memcpy(const Place& dst_place,
            void* dst,
            const Place& src_place,
            const void* src,
            size_t bytes) {
  if (bytes == 0) return;
  if (dst_place.is_host() && src_place.is_host()) {
    std::memcpy(dst, src, bytes);
    return;
  }
  MemcpyFn fn;
  {
    auto& r = GetRegistry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.copies.find({src_place.KindName(), dst_place.KindName()});
    PADDLE_ENFORCE(it != r.copies.end(),
                   errors::Unimplemented("No memory copy from ", src_place,
                                         " to ", dst_place, " is registered."));
    fn = it->second;
  }
  fn(dst, src, bytes);
}

}  // namespace platform
}  // namespace paddle_lite
