// The shared cuDNN convolution code of conv_util.h.
#include "kernels/cuda/cudnn/conv_util.h"

#include <algorithm>
#include <memory>
#include <sstream>
#include <vector>

#include "framework/tensor.h"
#include "kernels/cuda/cudnn/conv_layout_util.h"
#include "operators/conv_pool_shape.h"
#include "operators/conv_transpose_shape.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

namespace {

// The most workspace one convolution may use (Paddle's default limit): an
// algorithm that needs more is passed over.
constexpr size_t kWorkspaceLimit = size_t{512} << 20;

bool IsTensorOpMath(cudnnMathType_t math) {
  return math == CUDNN_TENSOR_OP_MATH ||
         math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
}

// The first usable entry of perf results (heuristics order or measured
// time order): it ran or may run, fits `limit` by cuDNN's own workspace
// query (`workspace_of(algo, &bytes)` with the descriptor set to the
// entry's math type) and, without TF32, uses no tensor-op math.
template <typename Perf, typename WorkspaceOf>
bool PickAlgorithm(const Perf* perf,
                   int count,
                   size_t limit,
                   bool allow_tf32,
                   cudnnConvolutionDescriptor_t conv,
                   WorkspaceOf workspace_of,
                   ConvAlgoChoice* choice) {
  const cudnnMathType_t fixed_math =
      allow_tf32 ? CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION : CUDNN_FMA_MATH;
  for (int i = 0; i < count; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    if (!allow_tf32 && IsTensorOpMath(perf[i].mathType)) continue;
    // With TF32 allowed, run the algorithm in the math type it was
    // proposed (or timed) with; without it, keep FMA only.
    const cudnnMathType_t math = allow_tf32 ? perf[i].mathType : fixed_math;
    PDLITE_CUDNN_CHECK(cudnnSetConvolutionMathType(conv, math));
    size_t bytes = 0;
    if (workspace_of(static_cast<int>(perf[i].algo), &bytes) !=
            CUDNN_STATUS_SUCCESS ||
        bytes > limit) {
      continue;
    }
    choice->algo = static_cast<int>(perf[i].algo);
    choice->workspace_bytes = bytes;
    choice->math_type = math;
    return true;
  }
  PDLITE_CUDNN_CHECK(cudnnSetConvolutionMathType(conv, fixed_math));
  return false;
}

// A fallback when no proposed algorithm qualifies: the implicit GEMM
// algorithm (forward) or algorithm 1 (backward data), which handle every
// float configuration with little or no workspace.
template <typename WorkspaceOf>
void FallbackAlgorithm(int algo,
                       bool allow_tf32,
                       cudnnConvolutionDescriptor_t conv,
                       WorkspaceOf workspace_of,
                       ConvAlgoChoice* choice) {
  const cudnnMathType_t math =
      allow_tf32 ? CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION : CUDNN_FMA_MATH;
  PDLITE_CUDNN_CHECK(cudnnSetConvolutionMathType(conv, math));
  size_t bytes = 0;
  PDLITE_CUDNN_CHECK(workspace_of(algo, &bytes));
  choice->algo = algo;
  choice->workspace_bytes = bytes;
  choice->math_type = math;
}

// The largest workspace, within the limit, that any of `algo_count`
// algorithms asks for: what a timed search must offer.
template <typename WorkspaceOf>
size_t SearchWorkspace(int algo_count, WorkspaceOf workspace_of) {
  size_t most = 0;
  for (int algo = 0; algo < algo_count; ++algo) {
    size_t bytes = 0;
    if (workspace_of(algo, &bytes) == CUDNN_STATUS_SUCCESS &&
        bytes <= kWorkspaceLimit) {
      most = std::max(most, bytes);
    }
  }
  return most;
}

}  // namespace

std::string CudnnConvShape::FamilyKey() const {
  std::ostringstream os;
  os << batch << ',' << in_channels << ':' << out_channels << ':' << kernel_h
     << ',' << kernel_w << ',' << groups << ':' << pad_h << ',' << pad_w << ','
     << stride_h << ',' << stride_w << ',' << dilation_h << ',' << dilation_w;
  return os.str();
}

std::string CudnnConvShape::Key() const {
  std::ostringstream os;
  os << FamilyKey() << '|' << in_h << ',' << in_w << ':' << out_h << ','
     << out_w;
  return os.str();
}

bool ConvAlgoCache::Find(const std::string& key, ConvAlgoChoice* choice) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(key);
  if (it == index_.end()) return false;
  order_.splice(order_.begin(), order_, it->second);
  *choice = it->second->second;
  return true;
}

void ConvAlgoCache::Insert(const std::string& key,
                           const ConvAlgoChoice& choice) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(key);
  if (it != index_.end()) {
    it->second->second = choice;
    order_.splice(order_.begin(), order_, it->second);
    return;
  }
  order_.emplace_front(key, choice);
  index_.emplace(key, order_.begin());
  bytes_ += Cost(key);
  while (bytes_ > kMaxKeyBytes && order_.size() > 1) {
    bytes_ -= Cost(order_.back().first);
    index_.erase(order_.back().first);
    order_.pop_back();
  }
}

CudnnConvPlan::CudnnConvPlan(const CUDADeviceContext& dev,
                             const CudnnConvShape& shape,
                             ConvDirection direction)
    : shape_(shape),
      direction_(direction),
      allow_tf32_(dev.allow_tf32()),
      exhaustive_(dev.cudnn_exhaustive_search()) {
  const CudnnConvShape& s = shape_;
  SetTensor4d(x_desc_, /*channel_last=*/false, s.batch, s.in_channels, s.in_h,
              s.in_w);
  SetTensor4d(y_desc_, /*channel_last=*/false, s.batch, s.out_channels, s.out_h,
              s.out_w);
  const int64_t group_channels = s.in_channels / s.groups;
  CudnnInt(s.out_channels * group_channels * s.kernel_h * s.kernel_w,
           "the filter element count");
  PDLITE_CUDNN_CHECK(cudnnSetFilter4dDescriptor(
      w_desc_.get(), CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
      CudnnInt(s.out_channels, "the filter's output channels"),
      CudnnInt(group_channels, "the filter's input channels"),
      CudnnInt(s.kernel_h, "the filter height"),
      CudnnInt(s.kernel_w, "the filter width")));
  PDLITE_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(
      conv_desc_.get(), CudnnInt(s.pad_h, "the padding"),
      CudnnInt(s.pad_w, "the padding"), CudnnInt(s.stride_h, "the stride"),
      CudnnInt(s.stride_w, "the stride"),
      CudnnInt(s.dilation_h, "the dilation"),
      CudnnInt(s.dilation_w, "the dilation"), CUDNN_CROSS_CORRELATION,
      CUDNN_DATA_FLOAT));
  PDLITE_CUDNN_CHECK(cudnnSetConvolutionGroupCount(
      conv_desc_.get(), CudnnInt(s.groups, "groups")));
  // fp32 stays fp32 unless TF32 is allowed (CUDNN_DEFAULT_MATH would let
  // cuDNN pick TF32 kernels on Ampere and later).
  PDLITE_CUDNN_CHECK(cudnnSetConvolutionMathType(
      conv_desc_.get(),
      allow_tf32_ ? CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION : CUDNN_FMA_MATH));
}

void CudnnConvPlan::Choose(const CUDADeviceContext& dev,
                           const float* x,
                           const float* w,
                           float* y) {
  if (chosen_) return;
  std::ostringstream prefix;
  prefix << (direction_ == ConvDirection::kForward ? "fwd|" : "bwd_data|")
         << (allow_tf32_ ? "tf32|" : "fp32|")
         << (exhaustive_ ? "search|" : "heuristic|");
  const std::string key = prefix.str() + shape_.Key();
  // A timed search is asked for per shape; only the heuristics' choice
  // carries over to other input sizes.
  const std::string family_key =
      exhaustive_ ? std::string() : prefix.str() + "any|" + shape_.FamilyKey();
  ConvAlgoCache& cache = dev.GetResource<ConvAlgoCache>();
  ConvAlgoChoice family;
  if (cache.Find(key, &choice_)) {
    PDLITE_CUDNN_CHECK(
        cudnnSetConvolutionMathType(conv_desc_.get(), choice_.math_type));
  } else if (!family_key.empty() && cache.Find(family_key, &family) &&
             ReuseFamilyChoice(dev, family)) {
    cache.Insert(key, choice_);
  } else {
    if (direction_ == ConvDirection::kForward) {
      ChooseForward(dev, x, w, y);
    } else {
      ChooseBackwardData(dev, x, w, y);
    }
    cache.Insert(key, choice_);
    if (!family_key.empty()) cache.Insert(family_key, choice_);
  }
  chosen_ = true;
}

bool CudnnConvPlan::ReuseFamilyChoice(const CUDADeviceContext& dev,
                                      const ConvAlgoChoice& family) {
  PDLITE_CUDNN_CHECK(
      cudnnSetConvolutionMathType(conv_desc_.get(), family.math_type));
  size_t bytes = 0;
  cudnnStatus_t status;
  if (direction_ == ConvDirection::kForward) {
    status = cudnnGetConvolutionForwardWorkspaceSize(
        dev.cudnn_handle(), x_desc_.get(), w_desc_.get(), conv_desc_.get(),
        y_desc_.get(), static_cast<cudnnConvolutionFwdAlgo_t>(family.algo),
        &bytes);
  } else {
    status = cudnnGetConvolutionBackwardDataWorkspaceSize(
        dev.cudnn_handle(), w_desc_.get(), y_desc_.get(), conv_desc_.get(),
        x_desc_.get(), static_cast<cudnnConvolutionBwdDataAlgo_t>(family.algo),
        &bytes);
  }
  if (status != CUDNN_STATUS_SUCCESS || bytes > kWorkspaceLimit) {
    // Not at this size: the heuristics choose, from the default math.
    PDLITE_CUDNN_CHECK(cudnnSetConvolutionMathType(
        conv_desc_.get(),
        allow_tf32_ ? CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION : CUDNN_FMA_MATH));
    return false;
  }
  choice_ = family;
  choice_.workspace_bytes = bytes;
  return true;
}

void CudnnConvPlan::ChooseForward(const CUDADeviceContext& dev,
                                  const float* x,
                                  const float* w,
                                  float* y) {
  cudnnHandle_t handle = dev.cudnn_handle();
  auto workspace_of = [&](int algo, size_t* bytes) {
    return cudnnGetConvolutionForwardWorkspaceSize(
        handle, x_desc_.get(), w_desc_.get(), conv_desc_.get(), y_desc_.get(),
        static_cast<cudnnConvolutionFwdAlgo_t>(algo), bytes);
  };
  constexpr int kCount = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(kCount);
  int returned = 0;
  size_t limit = kWorkspaceLimit;
  if (exhaustive_) {
    // The search runs and times every algorithm on these buffers; it
    // waits for the device, once per shape and context.
    limit = SearchWorkspace(kCount, workspace_of);
    void* workspace = limit > 0 ? dev.Workspace(limit) : nullptr;
    PDLITE_CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(
        handle, x_desc_.get(), x, w_desc_.get(), w, conv_desc_.get(),
        y_desc_.get(), y, kCount, &returned, perf.data(), workspace, limit));
  } else {
    PDLITE_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(
        handle, x_desc_.get(), w_desc_.get(), conv_desc_.get(), y_desc_.get(),
        kCount, &returned, perf.data()));
  }
  if (!PickAlgorithm(perf.data(), returned, limit, allow_tf32_,
                     conv_desc_.get(), workspace_of, &choice_)) {
    FallbackAlgorithm(CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, allow_tf32_,
                      conv_desc_.get(), workspace_of, &choice_);
  }
}

void CudnnConvPlan::ChooseBackwardData(const CUDADeviceContext& dev,
                                       const float* dy,
                                       const float* w,
                                       float* dx) {
  cudnnHandle_t handle = dev.cudnn_handle();
  auto workspace_of = [&](int algo, size_t* bytes) {
    return cudnnGetConvolutionBackwardDataWorkspaceSize(
        handle, w_desc_.get(), y_desc_.get(), conv_desc_.get(), x_desc_.get(),
        static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), bytes);
  };
  constexpr int kCount = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(kCount);
  int returned = 0;
  size_t limit = kWorkspaceLimit;
  if (exhaustive_) {
    // As in ChooseForward: a timed search that waits for the device once.
    limit = SearchWorkspace(kCount, workspace_of);
    void* workspace = limit > 0 ? dev.Workspace(limit) : nullptr;
    PDLITE_CUDNN_CHECK(cudnnFindConvolutionBackwardDataAlgorithmEx(
        handle, w_desc_.get(), w, y_desc_.get(), dy, conv_desc_.get(),
        x_desc_.get(), dx, kCount, &returned, perf.data(), workspace, limit));
  } else {
    PDLITE_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(
        handle, w_desc_.get(), y_desc_.get(), conv_desc_.get(), x_desc_.get(),
        kCount, &returned, perf.data()));
  }
  if (!PickAlgorithm(perf.data(), returned, limit, allow_tf32_,
                     conv_desc_.get(), workspace_of, &choice_)) {
    FallbackAlgorithm(CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, allow_tf32_,
                      conv_desc_.get(), workspace_of, &choice_);
  }
}

void CudnnConvPlan::Forward(const CUDADeviceContext& dev,
                            const float* x,
                            const float* w,
                            float* y) {
  Choose(dev, x, w, y);
  void* workspace = choice_.workspace_bytes > 0
                        ? dev.Workspace(choice_.workspace_bytes)
                        : nullptr;
  const float alpha = 1.0f;
  const float beta = 0.0f;
  PDLITE_CUDNN_CHECK(cudnnConvolutionForward(
      dev.cudnn_handle(), &alpha, x_desc_.get(), x, w_desc_.get(), w,
      conv_desc_.get(), static_cast<cudnnConvolutionFwdAlgo_t>(choice_.algo),
      workspace, choice_.workspace_bytes, &beta, y_desc_.get(), y));
}

void CudnnConvPlan::BackwardData(const CUDADeviceContext& dev,
                                 const float* dy,
                                 const float* w,
                                 float* dx) {
  Choose(dev, dy, w, dx);
  void* workspace = choice_.workspace_bytes > 0
                        ? dev.Workspace(choice_.workspace_bytes)
                        : nullptr;
  const float alpha = 1.0f;
  const float beta = 0.0f;
  PDLITE_CUDNN_CHECK(cudnnConvolutionBackwardData(
      dev.cudnn_handle(), &alpha, w_desc_.get(), w, y_desc_.get(), dy,
      conv_desc_.get(),
      static_cast<cudnnConvolutionBwdDataAlgo_t>(choice_.algo), workspace,
      choice_.workspace_bytes, &beta, x_desc_.get(), dx));
}

namespace {

/// What a convolution kernel keeps in its op's kernel_state: the plan for
/// the geometry it last ran, and how that geometry maps onto cuDNN.
struct ConvKernelState {
  bool transpose = false;
  operators::Conv2DGeometry geometry;
  bool allow_tf32 = false;
  bool exhaustive = false;
  // Input is first copied into an NCHW buffer of this shape (NHWC
  // converted; for the forward convolution with paddings cuDNN cannot
  // take, those made explicit zeros at offset (-pad_top, -pad_left)).
  bool stage_input = false;
  Spatial4D staged_input;
  int64_t input_offset_h = 0;
  int64_t input_offset_w = 0;
  // cuDNN writes an NCHW buffer of this shape, copied into Output from
  // offset (output_offset_h, output_offset_w) on (NHWC converted; the
  // transpose's paddings cropped).
  bool stage_output = false;
  Spatial4D staged_output;
  int64_t output_offset_h = 0;
  int64_t output_offset_w = 0;
  std::unique_ptr<CudnnConvPlan> plan;
};

bool SameGeometry(const operators::Conv2DGeometry& a,
                  const operators::Conv2DGeometry& b) {
  return a.channel_last == b.channel_last && a.batch == b.batch &&
         a.in_channels == b.in_channels && a.in_h == b.in_h &&
         a.in_w == b.in_w && a.out_channels == b.out_channels &&
         a.kernel_h == b.kernel_h && a.kernel_w == b.kernel_w &&
         a.groups == b.groups && a.stride_h == b.stride_h &&
         a.stride_w == b.stride_w && a.dilation_h == b.dilation_h &&
         a.dilation_w == b.dilation_w && a.pad.top == b.pad.top &&
         a.pad.bottom == b.pad.bottom && a.pad.left == b.pad.left &&
         a.pad.right == b.pad.right && a.out_h == b.out_h && a.out_w == b.out_w;
}

int64_t DilatedKernel(int64_t kernel, int64_t dilation) {
  return dilation * (kernel - 1) + 1;
}

// The fields of a CudnnConvShape that do not depend on the direction.
CudnnConvShape WindowOf(const operators::Conv2DGeometry& g) {
  CudnnConvShape s;
  s.batch = g.batch;
  s.kernel_h = g.kernel_h;
  s.kernel_w = g.kernel_w;
  s.groups = g.groups;
  s.stride_h = g.stride_h;
  s.stride_w = g.stride_w;
  s.dilation_h = g.dilation_h;
  s.dilation_w = g.dilation_w;
  return s;
}

// The cuDNN side of a forward convolution: cuDNN pads itself when the
// paddings are symmetric and the padded input holds the dilated window (so
// its rounding agrees); otherwise Input is staged with explicit zeros,
// extended to one window where C++ truncation gives an output cuDNN would
// not.
void PlanForward(const CUDADeviceContext& dev,
                 const operators::Conv2DGeometry& g,
                 ConvKernelState* state) {
  CudnnConvShape s = WindowOf(g);
  s.in_channels = g.in_channels;
  s.out_channels = g.out_channels;
  s.out_h = g.out_h;
  s.out_w = g.out_w;
  const int64_t dk_h = DilatedKernel(g.kernel_h, g.dilation_h);
  const int64_t dk_w = DilatedKernel(g.kernel_w, g.dilation_w);
  const bool cudnn_pads = g.pad.top == g.pad.bottom &&
                          g.pad.left == g.pad.right && g.pad.top >= 0 &&
                          g.pad.left >= 0 && g.in_h + 2 * g.pad.top >= dk_h &&
                          g.in_w + 2 * g.pad.left >= dk_w;
  if (cudnn_pads) {
    s.in_h = g.in_h;
    s.in_w = g.in_w;
    s.pad_h = g.pad.top;
    s.pad_w = g.pad.left;
  } else {
    s.in_h = std::max(g.in_h + g.pad.top + g.pad.bottom, dk_h);
    s.in_w = std::max(g.in_w + g.pad.left + g.pad.right, dk_w);
    state->input_offset_h = -g.pad.top;
    state->input_offset_w = -g.pad.left;
  }
  state->stage_input = !cudnn_pads || g.channel_last;
  state->staged_input = {g.batch, g.in_channels, s.in_h, s.in_w, false};
  state->stage_output = g.channel_last;
  state->staged_output = {g.batch, g.out_channels, g.out_h, g.out_w, false};
  state->plan =
      std::make_unique<CudnnConvPlan>(dev, s, ConvDirection::kForward);
}

// The cuDNN side of a transpose convolution, the backward-data pass of the
// forward convolution from Output's shape to Input's: straight into Output
// when the paddings are symmetric and that forward convolution gives
// exactly Input's size (output_padding within cuDNN's rounding); else into
// the whole unpadded result, (in - 1) * stride + dilated kernel, cropped
// at (pad_top, pad_left).
void PlanTranspose(const CUDADeviceContext& dev,
                   const operators::Conv2DGeometry& g,
                   ConvKernelState* state) {
  CudnnConvShape s = WindowOf(g);
  s.in_channels = g.out_channels;  // the forward convolution's x: Output
  s.out_channels = g.in_channels;  // its y: Input
  s.out_h = g.in_h;
  s.out_w = g.in_w;
  const int64_t dk_h = DilatedKernel(g.kernel_h, g.dilation_h);
  const int64_t dk_w = DilatedKernel(g.kernel_w, g.dilation_w);
  auto forward_size_matches = [](int64_t x, int64_t pad, int64_t dk,
                                 int64_t stride, int64_t y) {
    return x + 2 * pad >= dk && (x + 2 * pad - dk) / stride + 1 == y;
  };
  const bool cudnn_pads =
      g.pad.top == g.pad.bottom && g.pad.left == g.pad.right &&
      g.pad.top >= 0 && g.pad.left >= 0 &&
      forward_size_matches(g.out_h, g.pad.top, dk_h, g.stride_h, g.in_h) &&
      forward_size_matches(g.out_w, g.pad.left, dk_w, g.stride_w, g.in_w);
  if (cudnn_pads) {
    s.in_h = g.out_h;
    s.in_w = g.out_w;
    s.pad_h = g.pad.top;
    s.pad_w = g.pad.left;
  } else {
    s.in_h = (g.in_h - 1) * g.stride_h + dk_h;
    s.in_w = (g.in_w - 1) * g.stride_w + dk_w;
    state->output_offset_h = g.pad.top;
    state->output_offset_w = g.pad.left;
  }
  state->stage_input = g.channel_last;
  state->staged_input = {g.batch, g.in_channels, g.in_h, g.in_w, false};
  state->stage_output = !cudnn_pads || g.channel_last;
  state->staged_output = {g.batch, g.out_channels, s.in_h, s.in_w, false};
  state->plan =
      std::make_unique<CudnnConvPlan>(dev, s, ConvDirection::kBackwardData);
}

// The op's kept state when it still fits `g` and the context's settings,
// else a new one (kept in the op's slot when it has one; `holder` owns it
// otherwise).
ConvKernelState* StateFor(const framework::ExecutionContext& ctx,
                          const CUDADeviceContext& dev,
                          const operators::Conv2DGeometry& g,
                          bool transpose,
                          std::shared_ptr<ConvKernelState>* holder) {
  std::shared_ptr<void>* slot = ctx.kernel_state();
  if (slot != nullptr && *slot != nullptr) {
    auto* kept = static_cast<ConvKernelState*>(slot->get());
    if (kept->transpose == transpose && SameGeometry(kept->geometry, g) &&
        kept->allow_tf32 == dev.allow_tf32() &&
        kept->exhaustive == dev.cudnn_exhaustive_search()) {
      return kept;
    }
  }
  auto state = std::make_shared<ConvKernelState>();
  state->transpose = transpose;
  state->geometry = g;
  state->allow_tf32 = dev.allow_tf32();
  state->exhaustive = dev.cudnn_exhaustive_search();
  if (transpose) {
    PlanTranspose(dev, g, state.get());
  } else {
    PlanForward(dev, g, state.get());
  }
  *holder = state;
  if (slot != nullptr) *slot = state;
  return state.get();
}

// A device buffer of n floats for the duration of one Compute (the
// allocator is stream-ordered, so releasing it at scope exit is safe).
float* TemporaryBuffer(const framework::ExecutionContext& ctx,
                       int64_t n,
                       framework::Tensor* holder) {
  holder->Resize({n});
  return holder->mutable_data<float>(ctx.GetPlace());
}

// Every output element is the epilogue of 0: no input pixel reaches it
// (an empty Input with non-empty Output, e.g. no input channels).
void ZeroThenEpilogue(const CUDADeviceContext& dev,
                      const FusedEpilogue& epilogue,
                      float* out,
                      int64_t n) {
  PDLITE_CUDA_CHECK(cudaMemsetAsync(
      out, 0, static_cast<size_t>(n) * sizeof(float), dev.stream()));
  LaunchFusedEpilogue(dev.stream(), epilogue, out, out, n);
}

// Runs the state's plan from Input to Output through the staged buffers,
// then the epilogue on Output. `input` and `output` are the op's tensors
// in the op's layout, described by `input_shape` and `output_shape`.
void RunStaged(const framework::ExecutionContext& ctx,
               const CUDADeviceContext& dev,
               const ConvKernelState& state,
               const float* input,
               const Spatial4D& input_shape,
               const float* filter,
               float* output,
               const Spatial4D& output_shape,
               const FusedEpilogue& epilogue) {
  framework::Tensor staged_in, staged_out;
  const float* x = input;
  if (state.stage_input) {
    float* buffer =
        TemporaryBuffer(ctx, state.staged_input.numel(), &staged_in);
    LaunchShiftWindow2D(dev.stream(), input, input_shape, buffer,
                        state.staged_input, state.input_offset_h,
                        state.input_offset_w);
    x = buffer;
  }
  float* y = output;
  if (state.stage_output) {
    y = TemporaryBuffer(ctx, state.staged_output.numel(), &staged_out);
  }
  if (state.transpose) {
    state.plan->BackwardData(dev, x, filter, y);
  } else {
    state.plan->Forward(dev, x, filter, y);
  }
  if (state.stage_output) {
    LaunchShiftWindow2D(dev.stream(), y, state.staged_output, output,
                        output_shape, state.output_offset_h,
                        state.output_offset_w);
  }
  LaunchFusedEpilogue(dev.stream(), epilogue, output, output,
                      output_shape.numel());
}

}  // namespace

void RunConv2D(const framework::ExecutionContext& ctx,
               const EpilogueActivation& act) {
  const auto* input = ctx.Input<framework::Tensor>("Input");
  const auto* filter = ctx.Input<framework::Tensor>("Filter");
  const auto* bias = ctx.Input<framework::Tensor>("Bias");
  const auto* residual = ctx.Input<framework::Tensor>("ResidualData");
  auto* output = ctx.Output<framework::Tensor>("Output");
  const operators::Conv2DGeometry g =
      operators::ResolveConv2D(ctx.op(), input->dims(), filter->dims());
  float* out = AllocateOutput<float>(ctx, output);
  const int64_t n = output->numel();
  if (n == 0) return;
  const CUDADeviceContext& dev = DeviceContextOf(ctx);

  FusedEpilogue epilogue;
  epilogue.bias = bias != nullptr ? bias->data<float>() : nullptr;
  epilogue.channels = g.out_channels;
  epilogue.inner = g.channel_last ? 1 : g.out_h * g.out_w;
  epilogue.residual = residual != nullptr ? residual->data<float>() : nullptr;
  epilogue.act = act;
  if (input->numel() == 0) {
    ZeroThenEpilogue(dev, epilogue, out, n);
    return;
  }

  std::shared_ptr<ConvKernelState> holder;
  const ConvKernelState* state =
      StateFor(ctx, dev, g, /*transpose=*/false, &holder);
  RunStaged(ctx, dev, *state, input->data<float>(),
            {g.batch, g.in_channels, g.in_h, g.in_w, g.channel_last},
            filter->data<float>(), out,
            {g.batch, g.out_channels, g.out_h, g.out_w, g.channel_last},
            epilogue);
}

void RunConv2DTranspose(const framework::ExecutionContext& ctx,
                        const EpilogueActivation& act) {
  const auto* input = ctx.Input<framework::Tensor>("Input");
  const auto* filter = ctx.Input<framework::Tensor>("Filter");
  const auto* bias = ctx.Input<framework::Tensor>("Bias");
  auto* output = ctx.Output<framework::Tensor>("Output");
  const operators::Conv2DGeometry g = operators::ResolveConv2DTranspose(
      ctx.op(), input->dims(), filter->dims());
  float* out = AllocateOutput<float>(ctx, output);
  const int64_t n = output->numel();
  if (n == 0) return;
  const CUDADeviceContext& dev = DeviceContextOf(ctx);

  FusedEpilogue epilogue;
  epilogue.bias = bias != nullptr ? bias->data<float>() : nullptr;
  epilogue.channels = g.out_channels;
  epilogue.inner = g.channel_last ? 1 : g.out_h * g.out_w;
  epilogue.act = act;
  if (input->numel() == 0) {
    ZeroThenEpilogue(dev, epilogue, out, n);
    return;
  }

  std::shared_ptr<ConvKernelState> holder;
  const ConvKernelState* state =
      StateFor(ctx, dev, g, /*transpose=*/true, &holder);
  RunStaged(ctx, dev, *state, input->data<float>(),
            {g.batch, g.in_channels, g.in_h, g.in_w, g.channel_last},
            filter->data<float>(), out,
            {g.batch, g.out_channels, g.out_h, g.out_w, g.channel_last},
            epilogue);
}

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite
