// The CUDA place as the runtime sees it: libpaddle_lite_cuda.so is a
// plugin, loaded by the core the first time a CUDA place is asked for
// (framework::EnsurePlaceAvailable). Loading it registers the allocators,
// the copies between host and device, the device context and the
// libraries CUDA ops prefer; its kernel files register their kernels with
// the same macros as the CPU's. Loading needs no GPU: choosing kernels and
// `pdlite inspect --device cuda:0` work on any machine; a context (made
// when a predictor is created) is where a missing GPU is reported.
#include <cstring>

#include "framework/kernel_chooser.h"
#include "framework/plugin.h"
#include "platform/cuda/cuda_allocator.h"
#include "platform/cuda/cuda_device_context.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace platform {
namespace cuda {
namespace {

// The device a copy involves, for the stream it goes on: the thread's
// bound device, else the one owning the device-side pointer.
int DeviceOf(const void* device_ptr) {
  int device = 0;
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, device_ptr) == cudaSuccess &&
      attributes.type == cudaMemoryTypeDevice) {
    return attributes.device;
  }
  cudaGetLastError();
  cudaGetDevice(&device);
  return device;
}

// Copies are asynchronous on the current stream when a context is bound
// (the executor binds one before transfers), and waited for otherwise;
// device-to-host copies are always waited for, since the caller reads the
// result next.
void Copy(void* dst,
          const void* src,
          size_t bytes,
          const void* device_ptr,
          bool wait) {
  const int device = DeviceOf(device_ptr);
  const bool ordered = HasCurrentStream(device);
  cudaStream_t stream = CurrentStream(device);
  PDLITE_CUDA_CHECK(
      cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream));
  if (wait || !ordered) PDLITE_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace
}  // namespace cuda
}  // namespace platform
}  // namespace paddle_lite

PDLITE_PLUGIN(paddle_lite_cuda);

PDLITE_PLUGIN_INIT() {
  namespace platform = paddle_lite::platform;
  namespace cuda = paddle_lite::platform::cuda;
  platform::RegisterAllocatorFactory(
      "cuda", [](const platform::Place& place) -> platform::Allocator* {
        return &cuda::CUDAAllocator::ForDevice(place.device_id());
      });
  platform::RegisterAllocatorFactory(
      "cuda_pinned", [](const platform::Place&) -> platform::Allocator* {
        static auto* allocator = new cuda::CUDAPinnedAllocator;
        return allocator;
      });
  for (const char* host : {"cpu", "cuda_pinned"}) {
    platform::RegisterMemcpy(host, "cuda",
                             [](void* dst, const void* src, size_t n) {
                               cuda::Copy(dst, src, n, dst, false);
                             });
    platform::RegisterMemcpy("cuda", host,
                             [](void* dst, const void* src, size_t n) {
                               cuda::Copy(dst, src, n, src, true);
                             });
  }
  platform::RegisterMemcpy("cuda", "cuda",
                           [](void* dst, const void* src, size_t n) {
                             cuda::Copy(dst, src, n, dst, false);
                           });
  platform::RegisterDeviceContextFactory(
      "cuda",
      [](const platform::Place& place,
         const platform::DeviceContextOptions& options)
          -> std::unique_ptr<platform::DeviceContext> {
        return std::make_unique<platform::CUDADeviceContext>(place, options);
      });
  // On a CUDA place, cuDNN kernels come first, then the place's own
  // (PLAIN) CUDA kernels, then the CPU.
  paddle_lite::framework::RegisterPlaceLibraries("cuda", {"CUDNN"});
}
