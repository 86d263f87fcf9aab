#include "platform/cuda/cuda_allocator.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "platform/cuda/cuda_device_context.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace platform {
namespace cuda {

CUDAAllocator& CUDAAllocator::ForDevice(int device) {
  static std::mutex mu;
  static auto* allocators = new std::vector<std::unique_ptr<CUDAAllocator>>;
  std::lock_guard<std::mutex> lock(mu);
  if (static_cast<int>(allocators->size()) <= device) {
    allocators->resize(device + 1);
  }
  auto& slot = (*allocators)[device];
  if (!slot) slot.reset(new CUDAAllocator(device));
  return *slot;
}

CUDAAllocator::CUDAAllocator(int device) : device_(device) {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  PDLITE_CUDA_CHECK(cudaMemPoolCreate(&pool_, &props));
  // Keep freed memory cached (up to the limit) instead of returning it at
  // every synchronization.
  uint64_t keep = UINT64_MAX;
  PDLITE_CUDA_CHECK(
      cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep));
}

void CUDAAllocator::SetLimit(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (bytes == 0) return;
  limit_ = limit_ == 0 ? bytes : std::min(limit_, bytes);
  uint64_t keep = limit_;
  PDLITE_CUDA_CHECK(
      cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep));
}

size_t CUDAAllocator::limit() const {
  std::lock_guard<std::mutex> lock(mu_);
  return limit_;
}

size_t CUDAAllocator::bytes_in_use() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_use_;
}

size_t CUDAAllocator::peak_bytes_in_use() const {
  std::lock_guard<std::mutex> lock(mu_);
  return peak_;
}

void CUDAAllocator::ContextStarted() {
  std::lock_guard<std::mutex> lock(mu_);
  ++contexts_;
}

void CUDAAllocator::ContextEnded(cudaStream_t stream) {
  // The stream's work must be done before its blocks can be reused on
  // another stream; the context waits for it before calling here.
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& kv : stream_of_) {
    if (kv.second == stream) kv.second = nullptr;
  }
  if (--contexts_ == 0) {
    cudaMemPoolTrimTo(pool_, 0);
    limit_ = 0;
    uint64_t keep = UINT64_MAX;
    cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep);
  }
}

void* CUDAAllocator::AllocateFromPool(size_t size,
                                      bool ordered,
                                      cudaStream_t stream) {
  // A bound context has made its device current already.
  if (!ordered) PDLITE_CUDA_CHECK(cudaSetDevice(device_));
  void* ptr = nullptr;
  cudaError_t status = cudaMallocFromPoolAsync(&ptr, size, pool_, stream);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear it, then retry with the cache released
    cudaStreamSynchronize(stream);
    cudaMemPoolTrimTo(pool_, 0);
    status = cudaMallocFromPoolAsync(&ptr, size, pool_, stream);
  }
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    PADDLE_THROW(errors::ResourceExhausted(
        "cuda:", device_, ": out of memory allocating ", size, " bytes (",
        free_bytes, " of ", total, " bytes free on the device)."));
  }
  PDLITE_CUDA_CHECK(status);
  if (!ordered) PDLITE_CUDA_CHECK(cudaStreamSynchronize(stream));
  return ptr;
}

void* CUDAAllocator::AllocateRaw(size_t bytes) {
  const size_t size = std::max<size_t>(bytes, 1);
  const bool ordered = HasCurrentStream(device_);
  cudaStream_t stream = CurrentStream(device_);
  {
    // Reserved under the lock, so that clones allocating at once cannot
    // each pass the check and pass the limit together.
    std::lock_guard<std::mutex> lock(mu_);
    if (limit_ != 0 && in_use_ + size > limit_) {
      PADDLE_THROW(errors::ResourceExhausted(
          "cuda:", device_, ": allocating ", size, " bytes would exceed the ",
          "device memory limit of ", limit_, " bytes (", in_use_,
          " in use); raise Config::SetGpuMemoryLimit (pdlite --gpu-mem-mb)."));
    }
    in_use_ += size;
  }
  void* ptr = nullptr;
  try {
    ptr = AllocateFromPool(size, ordered, stream);
  } catch (...) {
    std::lock_guard<std::mutex> lock(mu_);
    in_use_ -= std::min(in_use_, size);
    throw;
  }
  std::lock_guard<std::mutex> lock(mu_);
  stream_of_[ptr] = ordered ? stream : nullptr;
  peak_ = std::max(peak_, in_use_);  // what was held, not what failed
  return ptr;
}

void CUDAAllocator::FreeRaw(void* ptr, size_t bytes) {
  cudaStream_t stream = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = stream_of_.find(ptr);
    if (it != stream_of_.end()) {
      stream = it->second;
      stream_of_.erase(it);
    }
    in_use_ -= std::min(in_use_, std::max<size_t>(bytes, 1));
  }
  // Freed in the order of the stream that last used the block; one whose
  // stream is gone (or that was made outside a context) goes on the
  // device's own stream, after the caller's work was waited for.
  if (stream == nullptr) stream = CurrentStream(device_);
  // Never throws: frees run in destructors.
  cudaFreeAsync(ptr, stream);
}

namespace {

// Powers of two from 4 KiB: a block serves any request of its class.
size_t PinnedSizeClass(size_t bytes) {
  size_t size = 4096;
  while (size < bytes) size <<= 1;
  return size;
}

}  // namespace

CUDAPinnedAllocator::~CUDAPinnedAllocator() {
  for (auto& kv : cached_) cudaFreeHost(kv.second);
}

void* CUDAPinnedAllocator::AllocateRaw(size_t bytes) {
  const size_t size = PinnedSizeClass(bytes);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = cached_.find(size);
    if (it != cached_.end()) {
      void* ptr = it->second;
      cached_bytes_ -= size;
      cached_.erase(it);
      return ptr;
    }
  }
  void* ptr = nullptr;
  cudaError_t status = cudaHostAlloc(&ptr, size, cudaHostAllocPortable);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    PADDLE_THROW(errors::ResourceExhausted("cuda_pinned: cannot allocate ",
                                           bytes,
                                           " bytes of page-locked host "
                                           "memory."));
  }
  PDLITE_CUDA_CHECK(status);
  return ptr;
}

void CUDAPinnedAllocator::FreeRaw(void* ptr, size_t bytes) {
  const size_t size = PinnedSizeClass(bytes);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cached_bytes_ + size <= kCacheBytes) {
      cached_.emplace(size, ptr);
      cached_bytes_ += size;
      return;
    }
  }
  // cudaFreeHost waits for copies still reading the buffer.
  cudaFreeHost(ptr);
}

}  // namespace cuda
}  // namespace platform
}  // namespace paddle_lite
