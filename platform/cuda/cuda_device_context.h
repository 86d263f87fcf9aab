// The device context of a CUDA place: one per predictor and device. It
// owns a non-blocking stream (never the legacy default stream), cuBLAS,
// cuBLASLt and cuDNN handles bound to that stream, a workspace that grows
// to the largest request, and the settings kernels read (TF32, cuDNN
// algorithm search). Kernels get it with
//   ctx.device_context<platform::CUDADeviceContext>()
// and queue all their work on stream(); nothing waits unless asked to.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "platform/cuda/cuda_error.h"
#include "platform/device_context.h"
#include "platform/place.h"

namespace paddle_lite {
namespace platform {

class CUDADeviceContext : public DeviceContext {
 public:
  /// Throws Unavailable when there is no CUDA device (or no driver), or
  /// `place` names a device that does not exist.
  CUDADeviceContext(const Place& place, const DeviceContextOptions& options);
  ~CUDADeviceContext() override;

  Place GetPlace() const override { return place_; }
  /// Blocks until everything queued on the stream has finished.
  void Wait() const override;
  /// Makes this context's device and stream the calling thread's current
  /// ones: allocations and copies made by the runtime (feeds, transfers)
  /// are then ordered on this stream.
  void MakeCurrent() const override;

  /// CUDA graphs: the stream is captured (thread-local mode, so other
  /// predictors' threads are unaffected) and the graph instantiated.
  bool SupportsGraphs() const override { return true; }
  void BeginCapture() const override;
  std::shared_ptr<void> EndCapture() const override;
  void AbortCapture() const override;
  void LaunchGraph(const std::shared_ptr<void>& graph) const override;
  uint64_t GraphEpoch() const override;
  /// CUDA events recorded on the stream.
  std::shared_ptr<void> MarkTime() const override;
  double ElapsedMs(const std::shared_ptr<void>& from,
                   const std::shared_ptr<void>& to) const override;

  int device_id() const { return device_; }
  cudaStream_t stream() const { return stream_; }
  cublasHandle_t cublas_handle() const { return cublas_; }
  cublasLtHandle_t cublaslt_handle() const { return cublaslt_; }
  cudnnHandle_t cudnn_handle() const { return cudnn_; }
  const cudaDeviceProp& properties() const { return properties_; }

  /// Scratch memory on the device for library calls (cuDNN workspaces),
  /// at least `bytes`; valid until the next Workspace() call. Kernels run
  /// one at a time on the stream, so one buffer serves them all.
  void* Workspace(size_t bytes) const;
  size_t workspace_bytes() const;

  /// TF32 tensor-core math for fp32 matmul and convolution (off: fp32
  /// results are computed in fp32).
  bool allow_tf32() const { return options_.allow_tf32; }
  /// cuDNN convolutions time every algorithm once per shape (cached)
  /// instead of taking the heuristics' first choice.
  bool cudnn_exhaustive_search() const {
    return options_.cudnn_exhaustive_search;
  }
  const DeviceContextOptions& options() const { return options_; }

 private:
  struct WorkspaceState;
  Place place_;
  int device_;
  DeviceContextOptions options_;
  cudaDeviceProp properties_{};
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  cublasLtHandle_t cublaslt_ = nullptr;
  cudnnHandle_t cudnn_ = nullptr;
  std::unique_ptr<WorkspaceState> workspace_;
};

namespace cuda {

/// The stream the calling thread's runtime work goes to on `device`: the
/// one a CUDADeviceContext made current, else a per-device internal
/// stream (and copies on it are waited for).
cudaStream_t CurrentStream(int device);
/// Binds `stream` of `device` to the calling thread (-1: none).
void SetCurrentStream(int device, cudaStream_t stream);
/// True when a context made its stream current on this thread.
bool HasCurrentStream(int device);

/// Number of CUDA devices; 0 (and `why` filled) when there is none or no
/// usable driver. Never throws.
int DeviceCount(std::string* why = nullptr);

}  // namespace cuda
}  // namespace platform
}  // namespace paddle_lite
