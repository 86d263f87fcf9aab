// CUDA, cuDNN and cuBLAS status codes as paddle_lite::Exception (code
// External). The executor adds the op and its input shapes when one
// escapes a kernel, so a check only names the call:
//
//   PDLITE_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, kind, stream));
//   PDLITE_CUDNN_CHECK(cudnnSoftmaxForward(...));
//   PDLITE_CUDA_LAUNCH_CHECK();  // after a <<<...>>> launch
//
// Part of the CUDA place (libpaddle_lite_cuda.so); the core never includes
// it.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

namespace paddle_lite {
namespace platform {
namespace cuda {

[[noreturn]] void ThrowCudaError(cudaError_t status,
                                 const char* call,
                                 const char* file,
                                 int line);
[[noreturn]] void ThrowCudnnError(cudnnStatus_t status,
                                  const char* call,
                                  const char* file,
                                  int line);
[[noreturn]] void ThrowCublasError(cublasStatus_t status,
                                   const char* call,
                                   const char* file,
                                   int line);

}  // namespace cuda
}  // namespace platform
}  // namespace paddle_lite

#define PDLITE_CUDA_CHECK(call)                                            \
  do {                                                                     \
    cudaError_t pdlite_status_ = (call);                                   \
    if (pdlite_status_ != cudaSuccess) {                                   \
      ::paddle_lite::platform::cuda::ThrowCudaError(pdlite_status_, #call, \
                                                    __FILE__, __LINE__);   \
    }                                                                      \
  } while (0)

#define PDLITE_CUDNN_CHECK(call)                                            \
  do {                                                                      \
    cudnnStatus_t pdlite_status_ = (call);                                  \
    if (pdlite_status_ != CUDNN_STATUS_SUCCESS) {                           \
      ::paddle_lite::platform::cuda::ThrowCudnnError(pdlite_status_, #call, \
                                                     __FILE__, __LINE__);   \
    }                                                                       \
  } while (0)

#define PDLITE_CUBLAS_CHECK(call)                                            \
  do {                                                                       \
    cublasStatus_t pdlite_status_ = (call);                                  \
    if (pdlite_status_ != CUBLAS_STATUS_SUCCESS) {                           \
      ::paddle_lite::platform::cuda::ThrowCublasError(pdlite_status_, #call, \
                                                      __FILE__, __LINE__);   \
    }                                                                        \
  } while (0)

/// After a kernel launch: a bad launch configuration is reported here;
/// faults inside the kernel surface at the next synchronizing call.
#define PDLITE_CUDA_LAUNCH_CHECK() PDLITE_CUDA_CHECK(cudaGetLastError())
