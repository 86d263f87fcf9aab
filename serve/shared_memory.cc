#include "serve/shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace pdlite {
namespace serve {

namespace {

Status Bad(std::string message) {
  return Status::Error(StatusCode::kInvalidArgument, std::move(message));
}

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

Status Refused() {
  return Bad(
      "shared memory is off: start the server with --shared-memory system "
      "to let clients register regions");
}

std::string RegionText(const SharedMemoryRegionInfo& info) {
  return "shared-memory region " + Quoted(info.name) + " (object " +
         Quoted(info.key) + ")";
}

// The object's size now; -1 when fstat fails.
int64_t ObjectSize(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return -1;
  return static_cast<int64_t>(st.st_size);
}

}  // namespace

SharedMemoryRegion::SharedMemoryRegion(SharedMemoryRegionInfo info,
                                       int fd,
                                       bool writable)
    : info_(std::move(info)), fd_(fd), writable_(writable) {}

SharedMemoryRegion::~SharedMemoryRegion() { ::close(fd_); }

Status SharedMemoryRegion::Locate(const std::string& what,
                                  uint64_t offset,
                                  uint64_t size,
                                  uint64_t* at) const {
  uint64_t end = 0;
  if (__builtin_add_overflow(offset, size, &end) || end > info_.byte_size) {
    return Bad(what + ": shared_memory_offset " + std::to_string(offset) +
               " and shared_memory_byte_size " + std::to_string(size) +
               " run past the end of " + RegionText(info_) + ", which has " +
               std::to_string(info_.byte_size) + " bytes");
  }
  *at = info_.offset + offset;  // no overflow: checked at registration
  return Status();
}

Status SharedMemoryRegion::Read(const std::string& what,
                                uint64_t offset,
                                uint64_t size,
                                char* out) const {
  uint64_t at = 0;
  Status status = Locate(what, offset, size, &at);
  if (!status.ok()) return status;
  uint64_t done = 0;
  while (done < size) {
    const ssize_t n =
        ::pread(fd_, out + done, size - done, static_cast<off_t>(at + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // 0: the object ends before the region does.
      return Bad(what + ": could read only " + std::to_string(done) + " of " +
                 std::to_string(size) + " bytes from " + RegionText(info_) +
                 (n == 0 ? ": the object is smaller than when it was "
                           "registered"
                         : std::string(": ") + std::strerror(errno)));
    }
    done += static_cast<uint64_t>(n);
  }
  return Status();
}

Status SharedMemoryRegion::CheckWrite(const std::string& what,
                                      uint64_t offset,
                                      uint64_t size) const {
  uint64_t at = 0;
  Status status = Locate(what, offset, size, &at);
  if (!status.ok()) return status;
  if (!writable_) {
    return Bad(what + ": " + RegionText(info_) +
               " could be opened only for reading, so outputs cannot go "
               "there");
  }
  // A write past the object's end would grow it: the client shrank it
  // after registering it, and reads back what it shrank it to.
  const int64_t object_size = ObjectSize(fd_);
  if (object_size < 0) {
    return Bad(what + ": cannot stat " + RegionText(info_) + ": " +
               std::strerror(errno));
  }
  if (static_cast<uint64_t>(object_size) < at + size) {
    return Bad(what + ": " + RegionText(info_) +
               " is smaller than when it was registered (" +
               std::to_string(object_size) + " bytes)");
  }
  return Status();
}

Status SharedMemoryRegion::Write(const std::string& what,
                                 uint64_t offset,
                                 std::string_view data) const {
  Status status = CheckWrite(what, offset, data.size());
  if (!status.ok()) return status;
  uint64_t at = 0;
  status = Locate(what, offset, data.size(), &at);
  if (!status.ok()) return status;
  uint64_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::pwrite(fd_, data.data() + done, data.size() - done,
                               static_cast<off_t>(at + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return Bad(what + ": could write only " + std::to_string(done) + " of " +
                 std::to_string(data.size()) + " bytes to " +
                 RegionText(info_) + ": " +
                 (n == 0 ? "no progress" : std::strerror(errno)));
    }
    done += static_cast<uint64_t>(n);
  }
  return Status();
}

Status SharedMemoryRegistry::Register(const std::string& name,
                                      const std::string& key,
                                      uint64_t offset,
                                      uint64_t byte_size) {
  if (!enabled_) return Refused();
  const std::string what = "shared-memory region " + Quoted(name);
  // Printable ASCII: names go back in JSON and in protobuf strings, which
  // must be UTF-8, and over HTTP in a URL path.
  const bool printable = std::all_of(name.begin(), name.end(), [](char c) {
    return c >= 0x20 && c <= 0x7e && c != '/';
  });
  if (name.empty() || name.size() > 255 || !printable) {
    return Bad(
        "a shared-memory region's name is 1 to 255 printable ASCII "
        "characters, without '/'; got " +
        Quoted(name));
  }
  // shm_open's form: one leading '/', no other (a name in /dev/shm).
  if (key.size() < 2 || key.size() > 255 || key[0] != '/' ||
      key.find('/', 1) != std::string::npos ||
      key.find('\0') != std::string::npos || key == "/." || key == "/..") {
    return Bad(what +
               ": the key must name a POSIX shared-memory object, "
               "'/' and then 1 to 254 bytes without '/' or NUL; got " +
               Quoted(key));
  }
  uint64_t end = 0;
  if (byte_size == 0 || __builtin_add_overflow(offset, byte_size, &end) ||
      end > static_cast<uint64_t>(INT64_MAX)) {
    return Bad(what +
               ": byte_size must be > 0, and offset + byte_size "
               "below 2^63; got offset " +
               std::to_string(offset) + ", byte_size " +
               std::to_string(byte_size));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (regions_.count(name) != 0) {
    return Status::Error(StatusCode::kAlreadyExists,
                         what +
                             " is already registered; unregister it "
                             "first");
  }
  if (regions_.size() >= kMaxRegions) {
    return Status::Error(StatusCode::kResourceExhausted,
                         what + ": the server holds " +
                             std::to_string(kMaxRegions) +
                             " regions already, as many as it takes");
  }
  bool writable = true;
  // O_NONBLOCK: opening a FIFO put in /dev/shm for reading only (the
  // fallback below) would otherwise wait, holding the registry, until a
  // writer comes; it is then refused as not a regular object. It changes
  // nothing for a shared-memory object.
  int fd = ::shm_open(key.c_str(), O_RDWR | O_NONBLOCK, 0);
  if (fd < 0 && (errno == EACCES || errno == EROFS)) {
    // Inputs only: writing an output there is refused when asked.
    writable = false;
    fd = ::shm_open(key.c_str(), O_RDONLY | O_NONBLOCK, 0);
  }
  if (fd < 0) {
    return Bad(what + ": cannot open the shared-memory object " + Quoted(key) +
               ": " + std::strerror(errno) +
               " (the client creates it, on the server's host)");
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Bad(what + ": " + Quoted(key) + " is not a shared-memory object");
  }
  if (static_cast<uint64_t>(st.st_size) < end) {
    ::close(fd);
    return Bad(what + ": the object " + Quoted(key) + " has " +
               std::to_string(st.st_size) + " bytes, fewer than offset " +
               std::to_string(offset) + " + byte_size " +
               std::to_string(byte_size));
  }
  SharedMemoryRegionInfo info{name, key, offset, byte_size};
  regions_[name] =
      std::make_shared<const SharedMemoryRegion>(std::move(info), fd, writable);
  return Status();
}

Status SharedMemoryRegistry::Unregister(const std::string& name) {
  if (!enabled_) return Refused();
  std::lock_guard<std::mutex> lock(mutex_);
  if (name.empty()) {
    regions_.clear();
    return Status();
  }
  // Triton answers success for a name that is not registered; so do we,
  // so that a client's cleanup may run twice.
  regions_.erase(name);
  return Status();
}

Status SharedMemoryRegistry::Describe(
    const std::string& name, std::vector<SharedMemoryRegionInfo>* out) const {
  if (!enabled_) return Refused();
  std::lock_guard<std::mutex> lock(mutex_);
  if (name.empty()) {
    for (const auto& [n, region] : regions_) out->push_back(region->info());
    return Status();
  }
  auto it = regions_.find(name);
  if (it == regions_.end()) {
    return Status::Error(
        StatusCode::kNotFound,
        "no shared-memory region " + Quoted(name) + " is registered");
  }
  out->push_back(it->second->info());
  return Status();
}

Status SharedMemoryRegistry::Find(
    const std::string& name,
    std::shared_ptr<const SharedMemoryRegion>* region) const {
  if (!enabled_) return Refused();
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = regions_.find(name);
  if (it == regions_.end()) {
    return Bad("no shared-memory region " + Quoted(name) + " is registered");
  }
  *region = it->second;
  return Status();
}

}  // namespace serve
}  // namespace pdlite
