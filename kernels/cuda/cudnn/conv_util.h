// What the cuDNN convolution kernels (conv2d, depthwise_conv2d,
// fused_conv2d, conv2d_transpose) share: the convolution as cuDNN sees it,
// its descriptors and algorithm, a per-context cache of chosen algorithms,
// and the Compute bodies themselves. Registers nothing; host code only.
//
// cuDNN always convolves NCHW here: its fp32 kernels support that layout
// best, for every grouping. It takes one symmetric padding per spatial
// dim and rounds output sizes down, where the ops allow [top, bottom,
// left, right] paddings and keep C++'s truncation (a window that does not
// fit by less than a stride still gives one output). The other cases run
// on staged buffers: the forward convolution reads an NCHW copy of Input
// with the paddings made explicit zeros, the transpose writes its whole
// unpadded result and then crops it; NHWC activations are converted on the
// way in and out by the same copies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "framework/kernel_registry.h"
#include "kernels/cuda/cuda_helper.h"
#include "kernels/cuda/cudnn/cudnn_util.h"
#include "kernels/cuda/fused_epilogue_util.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

/// A forward cross-correlation as cuDNN runs it: x [batch, in_channels,
/// in_h, in_w] and filter [out_channels, in_channels / groups, kernel_h,
/// kernel_w] give y [batch, out_channels, out_h, out_w], all NCHW /
/// OIHW, with symmetric zero padding. A transpose convolution is the
/// backward-data pass of one.
struct CudnnConvShape {
  int64_t batch = 0;
  int64_t in_channels = 0;
  int64_t in_h = 0;
  int64_t in_w = 0;
  int64_t out_channels = 0;
  int64_t out_h = 0;
  int64_t out_w = 0;
  int64_t kernel_h = 0;
  int64_t kernel_w = 0;
  int64_t groups = 1;
  int64_t pad_h = 0;
  int64_t pad_w = 0;
  int64_t stride_h = 1;
  int64_t stride_w = 1;
  int64_t dilation_h = 1;
  int64_t dilation_w = 1;

  /// Every field as text: the shape part of an algorithm cache key.
  std::string Key() const;
  /// Every field but the spatial sizes: convolutions of one layer at any
  /// input size.
  std::string FamilyKey() const;
};

enum class ConvDirection { kForward, kBackwardData };

/// A chosen cuDNN algorithm (a cudnnConvolutionFwdAlgo_t or
/// cudnnConvolutionBwdDataAlgo_t), the workspace it needs and the math
/// type it runs with.
struct ConvAlgoChoice {
  int algo = 0;
  size_t workspace_bytes = 0;
  cudnnMathType_t math_type = CUDNN_DEFAULT_MATH;
};

/// Algorithms chosen per convolution, kept per device context
/// (dev.GetResource<ConvAlgoCache>()), so that a shape seen again, by any
/// op, skips the heuristics query or the timed search. Bounded by the
/// bytes of its keys; the entry used longest ago goes first.
class ConvAlgoCache {
 public:
  static constexpr size_t kMaxKeyBytes = size_t{1} << 20;

  bool Find(const std::string& key, ConvAlgoChoice* choice);
  void Insert(const std::string& key, const ConvAlgoChoice& choice);

 private:
  using Entry = std::pair<std::string, ConvAlgoChoice>;
  static size_t Cost(const std::string& key) {
    return key.size() + sizeof(Entry);
  }

  std::mutex mu_;
  std::list<Entry> order_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  size_t bytes_ = 0;
};

/// The descriptors of one CudnnConvShape and the algorithm for one
/// direction, chosen on the first run: the heuristics' first choice whose
/// workspace fits, or with dev.cudnn_exhaustive_search() the fastest of a
/// timed search. A new input size of a layer already planned takes the
/// algorithm the heuristics gave that layer when cuDNN accepts it at this
/// size within the workspace limit: the heuristics' query costs more than
/// a new shape's whole run otherwise (about 25 ms a detector shape on an
/// H200). Math: FMA only, unless dev.allow_tf32().
class CudnnConvPlan {
 public:
  CudnnConvPlan(const CUDADeviceContext& dev,
                const CudnnConvShape& shape,
                ConvDirection direction);

  const CudnnConvShape& shape() const { return shape_; }

  /// y = conv(x, w) (a kForward plan).
  void Forward(const CUDADeviceContext& dev,
               const float* x,
               const float* w,
               float* y);
  /// dx = the adjoint of conv(., w) applied to dy, that is the transpose
  /// convolution of dy (a kBackwardData plan); dx has x's shape.
  void BackwardData(const CUDADeviceContext& dev,
                    const float* dy,
                    const float* w,
                    float* dx);

 private:
  // The buffers are needed by the timed search, which runs the
  // convolution; `y` is written.
  void Choose(const CUDADeviceContext& dev,
              const float* x,
              const float* w,
              float* y);
  // The layer's algorithm from another input size, if it fits this one.
  bool ReuseFamilyChoice(const CUDADeviceContext& dev,
                         const ConvAlgoChoice& family);
  void ChooseForward(const CUDADeviceContext& dev,
                     const float* x,
                     const float* w,
                     float* y);
  void ChooseBackwardData(const CUDADeviceContext& dev,
                          const float* dy,
                          const float* w,
                          float* dx);

  CudnnConvShape shape_;
  ConvDirection direction_;
  bool allow_tf32_;
  bool exhaustive_;
  CudnnTensorDesc x_desc_;
  CudnnTensorDesc y_desc_;
  CudnnFilterDesc w_desc_;
  CudnnConvDesc conv_desc_;
  bool chosen_ = false;
  ConvAlgoChoice choice_;
};

/// The Compute of conv2d, depthwise_conv2d and fused_conv2d:
/// Output = act(conv(Input, Filter) + Bias + ResidualData), the optional
/// terms when bound, in that order (as the CPU kernels).
void RunConv2D(const framework::ExecutionContext& ctx,
               const EpilogueActivation& act);

/// The Compute of conv2d_transpose:
/// Output = act(conv2d_transpose(Input, Filter) + Bias).
void RunConv2DTranspose(const framework::ExecutionContext& ctx,
                        const EpilogueActivation& act);

/// conv2d and depthwise_conv2d on cuDNN (no activation).
template <typename T>
class ConvCudnnKernel : public framework::OpKernel<T> {
  static_assert(std::is_same_v<T, float>, "the cuDNN convolution is fp32");

 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    RunConv2D(ctx, EpilogueActivation());
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite
