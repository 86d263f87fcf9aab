// Memory of a place. Tensors hold std::shared_ptr<Allocation>; an Allocator
// hands them out. Allocators are looked up per place kind, so a plugin
// device registers its own (and a caching allocator can replace one).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "platform/place.h"

namespace paddle_lite {
namespace platform {

/// A block of memory on a place. Freed (returned to its allocator) when the
/// last shared_ptr to it goes away.
class Allocation {
 public:
  Allocation(void* ptr, size_t size, Place place)
      : ptr_(ptr), size_(size), place_(std::move(place)) {}
  void* ptr() const { return ptr_; }
  size_t size() const { return size_; }
  const Place& place() const { return place_; }

 private:
  void* ptr_;
  size_t size_;
  Place place_;
};

using AllocationPtr = std::shared_ptr<Allocation>;

/// Interface of a place's allocator. Implementations must be thread-safe:
/// clones of a predictor allocate from several threads at once.
class Allocator {
 public:
  virtual ~Allocator() = default;
  /// Allocates `bytes` (0 is allowed and gives a valid, empty allocation).
  /// Throws ResourceExhausted when the memory cannot be had.
  AllocationPtr Allocate(size_t bytes);

 protected:
  virtual void* AllocateRaw(size_t bytes) = 0;
  virtual void FreeRaw(void* ptr, size_t bytes) = 0;
  /// The place allocations are made on.
  virtual Place place() const = 0;
  /// `ptr` (`bytes` on `where`) as an allocation whose last owner calls
  /// `release(ptr)`. If the allocation cannot be made, `release` runs at
  /// once and the error goes on: the block never leaks.
  static AllocationPtr Own(void* ptr,
                           size_t bytes,
                           const Place& where,
                           std::function<void(void*)> release);
};

/// Host memory aligned to 64 bytes (a cache line, and what AVX-512 loads
/// want).
class CPUAllocator : public Allocator {
 public:
  static constexpr size_t kAlignment = 64;

 protected:
  void* AllocateRaw(size_t bytes) override;
  void FreeRaw(void* ptr, size_t bytes) override;
  Place place() const override { return CPUPlace{}; }
};

using AllocatorFactory = std::function<Allocator*(const Place&)>;

/// Registers the allocator factory of a place kind ("cpu", "npu"). The
/// returned allocator must live until the process ends. Throws
/// AlreadyExists if the kind has one.
void RegisterAllocatorFactory(const std::string& place_kind,
                              AllocatorFactory factory);
/// Removes a kind's factory (plugins unloading, tests).
void UnregisterAllocatorFactory(const std::string& place_kind);

/// The allocator for `place`. Throws NotFound naming the place when no
/// device registered one. Host places (CPUPlace) get this thread's
/// ScopedHostAllocator when one is active.
Allocator* GetAllocator(const Place& place);

/// A host buffer a context keeps and grows from run to run (a kernel's
/// scratch): from the run's host allocator like a tensor, but held to the
/// limit for one tensor only (Config::SetMemoryLimits), not counted in the
/// run's total, which would then depend on what earlier runs grew it to.
AllocationPtr AllocateKeptHostBuffer(size_t bytes);

/// While alive, this thread's host allocations come from `allocator` (a
/// predictor's block pool while it records a plan). Scopes nest.
class ScopedHostAllocator {
 public:
  explicit ScopedHostAllocator(Allocator* allocator);
  ~ScopedHostAllocator();
  ScopedHostAllocator(const ScopedHostAllocator&) = delete;
  ScopedHostAllocator& operator=(const ScopedHostAllocator&) = delete;

 private:
  Allocator* previous_;
};

/// Copies bytes between places. A device registers its copies to and from
/// the CPU; host-to-host needs nothing.
using MemcpyFn = std::function<void(void* dst, const void* src, size_t bytes)>;
void RegisterMemcpy(const std::string& src_kind,
                    const std::string& dst_kind,
                    MemcpyFn fn);
void UnregisterMemcpy(const std::string& src_kind, const std::string& dst_kind);
/// Throws Unimplemented naming both places when no copy is registered.
void Memcpy(const Place& dst_place,
            void* dst,
            const Place& src_place,
            const void* src,
            size_t bytes);

}  // namespace platform
}  // namespace paddle_lite
