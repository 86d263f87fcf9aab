// The emu device: its arena, allocator, copies to and from the CPU and its
// device context, registered when the plugin loads.
#include "emu_device.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "framework/plugin.h"
#include "platform/enforce.h"

namespace emu {

namespace errors = paddle_lite::platform::errors;
namespace platform = paddle_lite::platform;

namespace {

std::atomic<int64_t> g_launches{0};

size_t RoundUp(size_t bytes) {
  if (bytes == 0) bytes = 1;  // empty tensors still get a distinct address
  return (bytes + EmuArena::kAlignment - 1) / EmuArena::kAlignment *
         EmuArena::kAlignment;
}

size_t ArenaCapacity() {
  const char* mb = std::getenv("PDLITE_EMU_MB");
  size_t megabytes = mb && *mb ? std::strtoull(mb, nullptr, 10) : 256;
  return (megabytes ? megabytes : 256) << 20;
}

}  // namespace

// ------------------------------------------------------------------- arena

EmuArena& EmuArena::Instance() {
  static EmuArena* arena = new EmuArena(ArenaCapacity());
  return *arena;
}

EmuArena::EmuArena(size_t capacity)
    : capacity_(capacity),
      // Not value-initialized: pages are only touched when used.
      storage_(new char[capacity + kAlignment]) {
  auto address = reinterpret_cast<uintptr_t>(storage_.get());
  base_ = storage_.get() + (kAlignment - address % kAlignment) % kAlignment;
  free_[0] = capacity_;
}

void* EmuArena::Allocate(size_t bytes) {
  const size_t size = RoundUp(bytes);
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < size) continue;
    const size_t offset = it->first;
    const size_t rest = it->second - size;
    free_.erase(it);
    if (rest > 0) free_[offset + size] = rest;
    used_[offset] = size;
    in_use_ += size;
    peak_ = std::max(peak_, in_use_);
    return base_ + offset;
  }
  PADDLE_THROW(errors::ResourceExhausted(
      "emu: cannot allocate ", bytes, " bytes: ", capacity_ - in_use_, " of ",
      capacity_,
      " bytes are free (fragmented); set PDLITE_EMU_MB to a larger arena."));
}

void EmuArena::Free(void* ptr) {
  std::lock_guard<std::mutex> lock(mu_);
  const size_t offset = static_cast<size_t>(static_cast<char*>(ptr) - base_);
  auto used = used_.find(offset);
  PADDLE_ENFORCE(used != used_.end(),
                 errors::InvalidArgument("emu: freeing ", ptr,
                                         ", which the arena did not hand "
                                         "out."));
  const size_t freed = used->second;
  used_.erase(used);
  in_use_ -= freed;
  size_t size = freed;
  // Merge with the free neighbours on both sides.
  size_t start = offset;
  auto next = free_.lower_bound(offset);
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      start = prev->first;
      size += prev->second;
      free_.erase(prev);
    }
  }
  if (next != free_.end() && offset + freed == next->first) {
    size += next->second;
    free_.erase(next);
  }
  free_[start] = size;
}

bool EmuArena::Contains(const void* ptr, size_t bytes) const {
  auto p = static_cast<const char*>(ptr);
  return p >= base_ && p + bytes <= base_ + capacity_;
}

size_t EmuArena::bytes_in_use() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_use_;
}

size_t EmuArena::peak_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return peak_;
}

// -------------------------------------------------- allocator and context

void* EmuAllocator::AllocateRaw(size_t bytes) {
  return EmuArena::Instance().Allocate(bytes);
}

void EmuAllocator::FreeRaw(void* ptr, size_t) {
  EmuArena::Instance().Free(ptr);
}

void EmuDeviceContext::Launch() const { ++g_launches; }

void CheckOnDevice(const paddle_lite::framework::Tensor& t,
                   const std::string& op,
                   const std::string& slot) {
  PADDLE_ENFORCE(
      t.place().KindName() == kDeviceType &&
          EmuArena::Instance().Contains(t.raw_data(), t.memory_size()),
      errors::PreconditionNotMet(op, " on emu: input ", slot, " (",
                                 paddle_lite::framework::TensorSummary(t),
                                 ") is on ", t.place(),
                                 ", not in the emu arena: the runtime must "
                                 "copy it to the device first."));
}

}  // namespace emu

// -------------------------------------------------------------- the plugin

// Checks on copies: one side must be in the arena, or the runtime asked
// for a copy the place kinds do not describe.
static void CheckInArena(const void* ptr, size_t bytes, const char* what) {
  PADDLE_ENFORCE(emu::EmuArena::Instance().Contains(ptr, bytes),
                 paddle_lite::platform::errors::InvalidArgument(
                     "emu: the ", what, " of a ", bytes,
                     "-byte copy is not in the emu arena."));
}

PDLITE_PLUGIN(emulated_device);

PDLITE_PLUGIN_INIT() {
  namespace platform = paddle_lite::platform;
  platform::RegisterAllocatorFactory(
      emu::kDeviceType, [](const platform::Place&) -> platform::Allocator* {
        static auto* allocator = new emu::EmuAllocator;
        return allocator;
      });
  platform::RegisterMemcpy("cpu", emu::kDeviceType,
                           [](void* dst, const void* src, size_t n) {
                             CheckInArena(dst, n, "destination");
                             std::memcpy(dst, src, n);
                           });
  platform::RegisterMemcpy(emu::kDeviceType, "cpu",
                           [](void* dst, const void* src, size_t n) {
                             CheckInArena(src, n, "source");
                             std::memcpy(dst, src, n);
                           });
  platform::RegisterMemcpy(emu::kDeviceType, emu::kDeviceType,
                           [](void* dst, const void* src, size_t n) {
                             CheckInArena(src, n, "source");
                             CheckInArena(dst, n, "destination");
                             std::memmove(dst, src, n);
                           });
  platform::RegisterDeviceContextFactory(
      emu::kDeviceType,
      [](const platform::Place& place, const platform::DeviceContextOptions&)
          -> std::unique_ptr<platform::DeviceContext> {
        return std::make_unique<emu::EmuDeviceContext>(place);
      });
}

// Read by the tests through dlsym: what the device did.
extern "C" __attribute__((visibility("default"))) size_t
pdlite_emu_bytes_in_use() {
  return emu::EmuArena::Instance().bytes_in_use();
}
extern "C" __attribute__((visibility("default"))) size_t
pdlite_emu_peak_bytes() {
  return emu::EmuArena::Instance().peak_bytes();
}
extern "C" __attribute__((visibility("default"))) int64_t
pdlite_emu_kernel_launches() {
  return emu::g_launches.load();
}
