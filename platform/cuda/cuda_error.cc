#include "platform/cuda/cuda_error.h"

#include <cstring>

#include "platform/enforce.h"

namespace paddle_lite {
namespace platform {
namespace cuda {

namespace {

// "platform/cuda/x.cc:12" rather than the build machine's absolute path.
const char* ShortFile(const char* file) {
  for (const char* root : {"/platform/", "/kernels/"}) {
    if (const char* p = std::strstr(file, root)) return p + 1;
  }
  return file;
}

}  // namespace

void ThrowCudaError(cudaError_t status,
                    const char* call,
                    const char* file,
                    int line) {
  PADDLE_THROW(errors::External("CUDA error ", cudaGetErrorName(status), " (",
                                cudaGetErrorString(status), ") from ", call,
                                " at ", ShortFile(file), ":", line));
}

void ThrowCudnnError(cudnnStatus_t status,
                     const char* call,
                     const char* file,
                     int line) {
  char detail[256] = {0};
  cudnnGetLastErrorString(detail, sizeof(detail));
  PADDLE_THROW(errors::External("cuDNN error ", cudnnGetErrorString(status),
                                " from ", call, " at ", ShortFile(file), ":",
                                line, detail[0] ? ": " : "", detail));
}

void ThrowCublasError(cublasStatus_t status,
                      const char* call,
                      const char* file,
                      int line) {
  PADDLE_THROW(errors::External("cuBLAS error ", cublasGetStatusName(status),
                                " (", cublasGetStatusString(status), ") from ",
                                call, " at ", ShortFile(file), ":", line));
}

}  // namespace cuda
}  // namespace platform
}  // namespace paddle_lite
