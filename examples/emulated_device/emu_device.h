// An emulated accelerator, "emu": a device added entirely by a plugin.
// Its memory is one arena of host memory that only the emu allocator hands
// out, separate from CPU buffers, so a tensor that reaches an emu kernel
// without being copied there is caught (EmuArena::Contains). Kernels run
// synchronously on the calling thread through the tensors' data pointers,
// which point into the arena.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "framework/tensor.h"
#include "platform/allocator.h"
#include "platform/device_context.h"
#include "platform/place.h"

namespace emu {

/// The place kind this plugin registers: `--device emu:0` selects it.
constexpr const char* kDeviceType = "emu";

/// The device's memory: one block reserved on first use (PDLITE_EMU_MB
/// megabytes, default 256), handed out first-fit in 64-byte aligned pieces
/// with neighbouring free pieces merged. Thread-safe.
class EmuArena {
 public:
  static constexpr size_t kAlignment = 64;

  /// The process-wide arena (never destroyed: tensors may be freed during
  /// static destruction).
  static EmuArena& Instance();

  /// Throws ResourceExhausted naming the request and what is free.
  void* Allocate(size_t bytes);
  void Free(void* ptr);
  /// True when [ptr, ptr + bytes) lies inside the arena.
  bool Contains(const void* ptr, size_t bytes) const;

  size_t capacity() const { return capacity_; }
  size_t bytes_in_use() const;
  size_t peak_bytes() const;

 private:
  explicit EmuArena(size_t capacity);
  size_t capacity_;
  std::unique_ptr<char[]> storage_;
  char* base_;  // storage_ aligned to kAlignment
  mutable std::mutex mu_;
  std::map<size_t, size_t> free_;  // offset -> size, ordered for merging
  std::map<size_t, size_t> used_;  // offset -> size
  size_t in_use_ = 0;
  size_t peak_ = 0;
};

/// The allocator the runtime gets for every emu place.
class EmuAllocator : public paddle_lite::platform::Allocator {
 protected:
  void* AllocateRaw(size_t bytes) override;
  void FreeRaw(void* ptr, size_t bytes) override;
  paddle_lite::platform::Place place() const override {
    return paddle_lite::platform::CustomPlace{kDeviceType, 0};
  }
};

/// What emu kernels run with: the place, and a count of the kernels
/// launched on it.
class EmuDeviceContext : public paddle_lite::platform::DeviceContext {
 public:
  explicit EmuDeviceContext(paddle_lite::platform::Place place)
      : place_(std::move(place)) {}
  paddle_lite::platform::Place GetPlace() const override { return place_; }
  /// Kernels run synchronously, so there is never queued work to wait
  /// for; a real device would block here until its stream drains.
  void Wait() const override {}
  /// Called by every emu kernel; counts launches for the tests.
  void Launch() const;

 private:
  paddle_lite::platform::Place place_;
};

/// Throws PreconditionNotMet unless `t` lives in the emu arena: an emu
/// kernel must only ever see tensors the runtime copied to the device.
void CheckOnDevice(const paddle_lite::framework::Tensor& t,
                   const std::string& op,
                   const std::string& slot);

}  // namespace emu
