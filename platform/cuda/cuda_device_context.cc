#include "platform/cuda/cuda_device_context.h"

#include <mutex>
#include <vector>

#include "platform/cuda/cuda_allocator.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace platform {

namespace cuda {

namespace {

struct CurrentBinding {
  int device = -1;
  cudaStream_t stream = nullptr;
};
thread_local CurrentBinding current;

}  // namespace

int DeviceCount(std::string* why) {
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    if (why) {
      *why = std::string(cudaGetErrorName(status)) + ": " +
             cudaGetErrorString(status);
    }
    return 0;
  }
  if (count == 0 && why) *why = "the driver reports 0 devices";
  return count;
}

void SetCurrentStream(int device, cudaStream_t stream) {
  current.device = device;
  current.stream = stream;
}

bool HasCurrentStream(int device) {
  return current.device == device && current.stream != nullptr;
}

cudaStream_t CurrentStream(int device) {
  if (HasCurrentStream(device)) return current.stream;
  // Work made outside any context (a tensor copied by a test, a buffer
  // freed after its predictor) goes on the device's own stream.
  static std::mutex mu;
  static auto* streams = new std::vector<cudaStream_t>;
  std::lock_guard<std::mutex> lock(mu);
  if (static_cast<int>(streams->size()) <= device) {
    streams->resize(device + 1, nullptr);
  }
  cudaStream_t& stream = (*streams)[device];
  if (stream == nullptr) {
    int previous = 0;
    cudaGetDevice(&previous);
    PDLITE_CUDA_CHECK(cudaSetDevice(device));
    PDLITE_CUDA_CHECK(
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaSetDevice(previous);
  }
  return stream;
}

}  // namespace cuda

struct CUDADeviceContext::WorkspaceState {
  std::mutex mu;
  AllocationPtr buffer;
  uint64_t epoch = 0;  // bumped when the buffer is replaced
};

CUDADeviceContext::CUDADeviceContext(const Place& place,
                                     const DeviceContextOptions& options)
    : place_(place),
      device_(place.device_id()),
      options_(options),
      workspace_(std::make_unique<WorkspaceState>()) {
  std::string why;
  const int count = cuda::DeviceCount(&why);
  PADDLE_ENFORCE(count > 0,
                 errors::Unavailable("no CUDA device: ", place,
                                     " was asked for, but CUDA finds no "
                                     "usable GPU (",
                                     why, ")."));
  PADDLE_ENFORCE(
      device_ >= 0 && device_ < count,
      errors::Unavailable(
          "no CUDA device ", device_, ": ", place,
          " was asked for, but this machine has ", count, " CUDA device",
          count == 1 ? "" : "s", " (cuda:0", count > 1 ? " .. cuda:" : "",
          count > 1 ? std::to_string(count - 1) : std::string(), ")."));
  PDLITE_CUDA_CHECK(cudaSetDevice(device_));
  PDLITE_CUDA_CHECK(cudaGetDeviceProperties(&properties_, device_));
  PDLITE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  PDLITE_CUBLAS_CHECK(cublasCreate(&cublas_));
  PDLITE_CUBLAS_CHECK(cublasSetStream(cublas_, stream_));
  // Default math: kernels pass CUBLAS_COMPUTE_32F (no TF32) unless TF32
  // is allowed, and then ask for it themselves.
  PDLITE_CUBLAS_CHECK(cublasSetMathMode(cublas_, CUBLAS_DEFAULT_MATH));
  PDLITE_CUBLAS_CHECK(cublasLtCreate(&cublaslt_));
  PDLITE_CUDNN_CHECK(cudnnCreate(&cudnn_));
  PDLITE_CUDNN_CHECK(cudnnSetStream(cudnn_, stream_));
  auto& allocator = cuda::CUDAAllocator::ForDevice(device_);
  allocator.ContextStarted();
  allocator.SetLimit(options_.device_memory_limit);
}

CUDADeviceContext::~CUDADeviceContext() {
  // Never throws: the stream's work is waited for, then everything goes.
  cudaSetDevice(device_);
  if (stream_) cudaStreamSynchronize(stream_);
  if (cuda::HasCurrentStream(device_) &&
      cuda::CurrentStream(device_) == stream_) {
    cuda::SetCurrentStream(-1, nullptr);
  }
  workspace_->buffer.reset();
  if (cudnn_) cudnnDestroy(cudnn_);
  if (cublaslt_) cublasLtDestroy(cublaslt_);
  if (cublas_) cublasDestroy(cublas_);
  if (stream_) {
    cudaStreamSynchronize(stream_);
    cuda::CUDAAllocator::ForDevice(device_).ContextEnded(stream_);
    cudaStreamDestroy(stream_);
  }
}

void CUDADeviceContext::Wait() const {
  PDLITE_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void CUDADeviceContext::MakeCurrent() const {
  if (cuda::HasCurrentStream(device_) &&
      cuda::CurrentStream(device_) == stream_) {
    return;
  }
  PDLITE_CUDA_CHECK(cudaSetDevice(device_));
  cuda::SetCurrentStream(device_, stream_);
}

void* CUDADeviceContext::Workspace(size_t bytes) const {
  std::lock_guard<std::mutex> lock(workspace_->mu);
  auto& buffer = workspace_->buffer;
  if (!buffer || buffer->size() < bytes) {
    MakeCurrent();
    buffer.reset();  // freed in stream order before the larger one
    buffer = cuda::CUDAAllocator::ForDevice(device_).Allocate(bytes);
    ++workspace_->epoch;
  }
  return buffer->ptr();
}

size_t CUDADeviceContext::workspace_bytes() const {
  std::lock_guard<std::mutex> lock(workspace_->mu);
  return workspace_->buffer ? workspace_->buffer->size() : 0;
}

uint64_t CUDADeviceContext::GraphEpoch() const {
  std::lock_guard<std::mutex> lock(workspace_->mu);
  return workspace_->epoch;
}

void CUDADeviceContext::BeginCapture() const {
  MakeCurrent();
  PDLITE_CUDA_CHECK(
      cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
}

std::shared_ptr<void> CUDADeviceContext::EndCapture() const {
  cudaGraph_t graph = nullptr;
  PDLITE_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
  cudaGraphExec_t exec = nullptr;
  cudaError_t status = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  PDLITE_CUDA_CHECK(status);
  // The executable graph lives as long as the plan holding it.
  return std::shared_ptr<void>(exec, [](void* e) {
    cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(e));
  });
}

void CUDADeviceContext::AbortCapture() const {
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream_, &capturing) == cudaSuccess &&
      capturing != cudaStreamCaptureStatusNone) {
    cudaGraph_t graph = nullptr;
    cudaStreamEndCapture(stream_, &graph);
    if (graph != nullptr) cudaGraphDestroy(graph);
  }
  cudaGetLastError();  // a failed capture leaves its error; clear it
}

void CUDADeviceContext::LaunchGraph(const std::shared_ptr<void>& graph) const {
  MakeCurrent();
  PDLITE_CUDA_CHECK(
      cudaGraphLaunch(static_cast<cudaGraphExec_t>(graph.get()), stream_));
}

std::shared_ptr<void> CUDADeviceContext::MarkTime() const {
  cudaEvent_t event = nullptr;
  PDLITE_CUDA_CHECK(cudaEventCreate(&event));
  std::shared_ptr<void> mark(
      event, [](void* e) { cudaEventDestroy(static_cast<cudaEvent_t>(e)); });
  PDLITE_CUDA_CHECK(cudaEventRecord(event, stream_));
  return mark;
}

double CUDADeviceContext::ElapsedMs(const std::shared_ptr<void>& from,
                                    const std::shared_ptr<void>& to) const {
  auto end = static_cast<cudaEvent_t>(to.get());
  PDLITE_CUDA_CHECK(cudaEventSynchronize(end));
  float ms = 0;
  PDLITE_CUDA_CHECK(
      cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(from.get()), end));
  return ms;
}

}  // namespace platform
}  // namespace paddle_lite
