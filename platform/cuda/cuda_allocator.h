// Device memory of the CUDA place: a caching, stream-ordered allocator per
// device on a private cudaMallocAsync pool. Freed blocks go back to the
// pool on the stream that used them and are reused by later requests
// without a cudaMalloc or a device-wide synchronization; the pool keeps
// freed memory cached up to the byte limit and gives all of it back to the
// device when the last CUDA context (predictor) of the device goes.
// Page-locked host memory (CUDAPinnedPlace) stages feeds and fetches.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <unordered_map>

#include "platform/allocator.h"
#include "platform/cuda/cuda_error.h"

namespace paddle_lite {
namespace platform {
namespace cuda {

class CUDAAllocator : public Allocator {
 public:
  /// The allocator of `device` (made on first use, lives for the process).
  static CUDAAllocator& ForDevice(int device);

  /// Bytes this process may hold on the device, in use and cached
  /// together (0: no limit but the device's). The smallest limit any
  /// live context asked for wins.
  void SetLimit(size_t bytes);
  size_t limit() const;
  size_t bytes_in_use() const;
  size_t peak_bytes_in_use() const;

  /// A CUDA context of this device starts or ends; when the last one
  /// ends, the pool's cached memory is returned to the device. A stream
  /// that ends is waited for, and blocks it last used are freed on the
  /// device's own stream from then on.
  void ContextStarted();
  void ContextEnded(cudaStream_t stream);

 protected:
  void* AllocateRaw(size_t bytes) override;
  void FreeRaw(void* ptr, size_t bytes) override;
  Place place() const override { return CUDAPlace{device_}; }

 private:
  explicit CUDAAllocator(int device);
  // cudaMallocFromPoolAsync, once more after trimming the pool when the
  // device is out of memory; throws ResourceExhausted if it still is.
  void* AllocateFromPool(size_t size, bool ordered, cudaStream_t stream);
  int device_;
  cudaMemPool_t pool_ = nullptr;
  mutable std::mutex mu_;
  std::unordered_map<void*, cudaStream_t> stream_of_;
  size_t in_use_ = 0;
  size_t peak_ = 0;
  size_t limit_ = 0;
  int contexts_ = 0;
};

/// Page-locked host memory (cudaHostAlloc): copies from and to it run
/// asynchronously at full bus speed. cudaHostAlloc costs far more than a
/// copy, so freed blocks are kept (up to kCacheBytes) and reused for
/// requests of the same size class. Feeds are staged here; a block is only
/// reused after the Run that read it returned (Run waits for its stream).
class CUDAPinnedAllocator : public Allocator {
 public:
  static constexpr size_t kCacheBytes = size_t{256} << 20;
  ~CUDAPinnedAllocator() override;

 protected:
  void* AllocateRaw(size_t bytes) override;
  void FreeRaw(void* ptr, size_t bytes) override;
  Place place() const override { return CUDAPinnedPlace{}; }

 private:
  std::mutex mu_;
  std::multimap<size_t, void*> cached_;  // by size class
  size_t cached_bytes_ = 0;
};

}  // namespace cuda
}  // namespace platform
}  // namespace paddle_lite
