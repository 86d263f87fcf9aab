// What the cuDNN kernels of kernels/cuda/cudnn share: owning wrappers of
// cuDNN descriptors and the check that a size fits cuDNN's int arguments.
// Private to this folder; host code only.
#pragma once

#include <climits>
#include <cstdint>
#include <string>
#include <utility>

#include "platform/cuda/cuda_error.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

/// Owns one cuDNN descriptor of type D, made by Create and freed by
/// Destroy. Movable, not copyable.
template <typename D, cudnnStatus_t (*Create)(D*), cudnnStatus_t (*Destroy)(D)>
class CudnnDescriptor {
 public:
  CudnnDescriptor() { PDLITE_CUDNN_CHECK(Create(&desc_)); }
  ~CudnnDescriptor() {
    if (desc_ != nullptr) Destroy(desc_);
  }
  CudnnDescriptor(const CudnnDescriptor&) = delete;
  CudnnDescriptor& operator=(const CudnnDescriptor&) = delete;
  CudnnDescriptor(CudnnDescriptor&& other) noexcept : desc_(other.desc_) {
    other.desc_ = nullptr;
  }
  CudnnDescriptor& operator=(CudnnDescriptor&& other) noexcept {
    std::swap(desc_, other.desc_);
    return *this;
  }

  D get() const { return desc_; }

 private:
  D desc_ = nullptr;
};

using CudnnTensorDesc = CudnnDescriptor<cudnnTensorDescriptor_t,
                                        cudnnCreateTensorDescriptor,
                                        cudnnDestroyTensorDescriptor>;
using CudnnFilterDesc = CudnnDescriptor<cudnnFilterDescriptor_t,
                                        cudnnCreateFilterDescriptor,
                                        cudnnDestroyFilterDescriptor>;
using CudnnConvDesc = CudnnDescriptor<cudnnConvolutionDescriptor_t,
                                      cudnnCreateConvolutionDescriptor,
                                      cudnnDestroyConvolutionDescriptor>;
using CudnnPoolingDesc = CudnnDescriptor<cudnnPoolingDescriptor_t,
                                         cudnnCreatePoolingDescriptor,
                                         cudnnDestroyPoolingDescriptor>;

/// True when v fits the int sizes and strides of cuDNN's descriptors.
inline bool FitsCudnnInt(int64_t v) { return v >= 0 && v <= INT_MAX; }

/// `v` as an int for a cuDNN descriptor; Unimplemented naming `what` when
/// it does not fit (cuDNN's legacy API indexes with 32-bit ints).
inline int CudnnInt(int64_t v, const char* what) {
  PADDLE_ENFORCE(FitsCudnnInt(v),
                 errors::Unimplemented(
                     what, " = ", v,
                     " does not fit cuDNN's 32-bit sizes; this tensor is too "
                     "large for the CUDNN kernel"));
  return static_cast<int>(v);
}

/// Sets a 4-D float tensor descriptor [n, c, h, w] in NCHW or NHWC memory
/// order. The element count must fit an int too: cuDNN computes strides
/// from it.
inline void SetTensor4d(const CudnnTensorDesc& desc,
                        bool channel_last,
                        int64_t n,
                        int64_t c,
                        int64_t h,
                        int64_t w) {
  CudnnInt(n * c * h * w, "the element count");
  PDLITE_CUDNN_CHECK(cudnnSetTensor4dDescriptor(
      desc.get(), channel_last ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
      CUDNN_DATA_FLOAT, CudnnInt(n, "the batch size"),
      CudnnInt(c, "the channel count"), CudnnInt(h, "the height"),
      CudnnInt(w, "the width")));
}

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite
