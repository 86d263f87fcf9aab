// The protocol's system shared-memory extension: a client on the server's
// host creates a POSIX shared-memory object, registers a region of it by
// name, and then names that region in infer requests instead of sending a
// tensor's bytes (inputs), or to have an output written there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "serve/types.h"

namespace pdlite {
namespace serve {

/// A registered region, as the status call reports it.
struct SharedMemoryRegionInfo {
  std::string name;
  std::string key;  // the object's name, for shm_open: "/name"
  uint64_t offset = 0;
  uint64_t byte_size = 0;
};

/// One registered region. Its bytes are read and written with pread and
/// pwrite on the object, not through a mapping: a client that shrinks the
/// object after registering it then gets an error, where a read through a
/// mapping past the object's new end would kill the server (SIGBUS).
class SharedMemoryRegion {
 public:
  SharedMemoryRegion(SharedMemoryRegionInfo info, int fd, bool writable);
  ~SharedMemoryRegion();
  SharedMemoryRegion(const SharedMemoryRegion&) = delete;
  SharedMemoryRegion& operator=(const SharedMemoryRegion&) = delete;

  const SharedMemoryRegionInfo& info() const { return info_; }
  /// False when the object could be opened only for reading.
  bool writable() const { return writable_; }
  /// OK when [offset, offset + size) lies within the region; else
  /// InvalidArgument naming `what`.
  Status CheckRange(const std::string& what,
                    uint64_t offset,
                    uint64_t size) const {
    uint64_t at = 0;
    return Locate(what, offset, size, &at);
  }
  /// Copies `size` bytes from `offset` within the region into `out`;
  /// InvalidArgument naming `what` when they run past the region, or past
  /// the object's end (it shrank after it was registered).
  Status Read(const std::string& what,
              uint64_t offset,
              uint64_t size,
              char* out) const;
  /// OK when `size` bytes at `offset` can be written: within the region,
  /// the object opened for writing and not shrunk since (so that every
  /// output of an answer is checked before any is written).
  Status CheckWrite(const std::string& what,
                    uint64_t offset,
                    uint64_t size) const;
  /// Writes `data` at `offset` within the region; errors as for Read, and
  /// when the object could only be opened read-only.
  Status Write(const std::string& what,
               uint64_t offset,
               std::string_view data) const;

 private:
  // The range [offset, offset + size) of the region, checked; `*at` gets
  // its offset within the object.
  Status Locate(const std::string& what,
                uint64_t offset,
                uint64_t size,
                uint64_t* at) const;

  const SharedMemoryRegionInfo info_;
  const int fd_;
  const bool writable_;
};

/// The regions clients registered, by name. Thread-safe. A region that is
/// unregistered while a request uses it stays open until that request is
/// answered.
class SharedMemoryRegistry {
 public:
  /// Regions registered at once, at most: each holds a file descriptor.
  static constexpr size_t kMaxRegions = 256;

  /// `enabled`: whether clients may use shared memory at all (the
  /// server's --shared-memory system); off, every call is refused.
  explicit SharedMemoryRegistry(bool enabled) : enabled_(enabled) {}

  bool enabled() const { return enabled_; }
  /// Opens the object `key` and registers [offset, offset + byte_size) of
  /// it as `name`. The object must exist and be at least that large.
  Status Register(const std::string& name,
                  const std::string& key,
                  uint64_t offset,
                  uint64_t byte_size);
  /// Unregisters `name`, or every region when `name` is "".
  Status Unregister(const std::string& name);
  /// The region `name`, or every region (by name) when `name` is "".
  Status Describe(const std::string& name,
                  std::vector<SharedMemoryRegionInfo>* out) const;
  /// The region `name`, for a request to read or write.
  Status Find(const std::string& name,
              std::shared_ptr<const SharedMemoryRegion>* region) const;

 private:
  const bool enabled_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const SharedMemoryRegion>> regions_;
};

}  // namespace serve
}  // namespace pdlite
