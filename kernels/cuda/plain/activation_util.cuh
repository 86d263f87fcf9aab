// Activations of the CUDA place: one device functor per activation with
// the formulas of the CPU kernels (kernels/cpu/plain/<op>.cc and
// fused_activation.h), the launcher of the standalone activation ops, and
// the runtime-selected activation the fused ops apply to their result
// (fuse_activation / fuse_alpha / fuse_beta, operators/fused_activation.h).
// Private to kernels/cuda.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/cuda/cuda_helper.h"
#include "operators/fused_activation.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {
namespace activation {

// exp and tanh in the element type's precision (expf for float), as
// std::exp and std::tanh pick on the CPU.
__device__ inline float ExpOf(float x) { return expf(x); }
__device__ inline double ExpOf(double x) { return exp(x); }
__device__ inline float TanhOf(float x) { return tanhf(x); }
__device__ inline double TanhOf(double x) { return tanh(x); }
// A product nvcc may not fuse with the next addition (the CPU kernels
// round it before adding).
__device__ inline float MulRn(float a, float b) { return __fmul_rn(a, b); }
__device__ inline double MulRn(double a, double b) { return __dmul_rn(a, b); }

template <typename T>
struct Relu {
  __device__ T operator()(T x) const { return x > T(0) ? x : T(0); }
};
template <typename T>
struct Relu6 {
  T threshold;
  __device__ T operator()(T x) const {
    T v = x > T(0) ? x : T(0);
    return v < threshold ? v : threshold;
  }
};
template <typename T>
struct LeakyRelu {
  T alpha;
  __device__ T operator()(T x) const { return x >= T(0) ? x : alpha * x; }
};
template <typename T>
struct Sigmoid {
  __device__ T operator()(T x) const { return T(1) / (T(1) + ExpOf(-x)); }
};
template <typename T>
struct Tanh {
  __device__ T operator()(T x) const { return TanhOf(x); }
};
template <typename T>
struct Swish {
  T beta;
  __device__ T operator()(T x) const { return x / (T(1) + ExpOf(-beta * x)); }
};
template <typename T>
struct HardSwish {
  T threshold;
  T scale;
  T offset;
  __device__ T operator()(T x) const {
    T v = x + offset;
    v = v > T(0) ? v : T(0);
    v = v < threshold ? v : threshold;
    return x * v / scale;
  }
};
template <typename T>
struct HardSigmoid {
  T slope;
  T offset;
  __device__ T operator()(T x) const {
    T v = MulRn(slope, x) + offset;
    v = v > T(1) ? T(1) : v;  // compared so that a NaN stays NaN
    return v < T(0) ? T(0) : v;
  }
};

}  // namespace activation

/// out[i] = f(in[i]); `in` may equal `out` (in place).
template <typename T, typename F>
__global__ void ActivationKernel(const T* in, T* out, int64_t n, F f) {
  PDLITE_CUDA_KERNEL_LOOP(i, n) { out[i] = f(in[i]); }
}

template <typename T, typename F>
void LaunchActivation(
    const CUDADeviceContext& dev, const T* in, T* out, int64_t n, F f) {
  if (n == 0) return;
  ActivationKernel<<<BlocksFor(n), kThreadsPerBlock, 0, dev.stream()>>>(in, out,
                                                                        n, f);
  PDLITE_CUDA_LAUNCH_CHECK();
}

/// Body of the standalone activation ops: Out = f(X) (Out sized by
/// InferShape, allocated even when empty).
template <typename T, typename F>
void UnaryCUDACompute(const framework::ExecutionContext& ctx, F f) {
  const auto* x = ctx.Input<framework::Tensor>("X");
  auto* out = ctx.Output<framework::Tensor>("Out");
  T* o = AllocateOutput<T>(ctx, out);
  if (x->numel() == 0) return;
  LaunchActivation(DeviceContextOf(ctx), x->data<T>(), o, x->numel(), f);
}

/// The fused activation, chosen at run time: one functor (a uniform switch
/// per element) instead of one kernel per activation and fused op.
enum class FusedActivationKind : int {
  kNone,
  kRelu,
  kRelu6,
  kLeakyRelu,
  kHardSwish,
  kSigmoid,
  kSwish,
  kHardSigmoid,
};

template <typename T>
struct FusedActivationFunctor {
  FusedActivationKind kind = FusedActivationKind::kNone;
  T alpha = T(0);
  T beta = T(0);

  __device__ T operator()(T x) const {
    namespace act = activation;
    switch (kind) {
      case FusedActivationKind::kNone:
        return x;
      case FusedActivationKind::kRelu:
        return act::Relu<T>{}(x);
      case FusedActivationKind::kRelu6:
        return act::Relu6<T>{beta}(x);
      case FusedActivationKind::kLeakyRelu:
        return act::LeakyRelu<T>{alpha}(x);
      case FusedActivationKind::kHardSwish:  // Paddle's fixed 6, 6, 3
        return act::HardSwish<T>{T(6), T(6), T(3)}(x);
      case FusedActivationKind::kSigmoid:
        return act::Sigmoid<T>{}(x);
      case FusedActivationKind::kSwish:
        return act::Swish<T>{alpha}(x);
      case FusedActivationKind::kHardSigmoid:
        return act::HardSigmoid<T>{alpha, beta}(x);
    }
    return x;
  }
};

/// The functor for the fuse_* attributes; throws Unimplemented for an
/// activation the CPU kernels do not know either.
template <typename T>
FusedActivationFunctor<T> MakeFusedActivation(
    const operators::FusedActivation& act) {
  FusedActivationFunctor<T> f;
  f.alpha = static_cast<T>(act.alpha);
  f.beta = static_cast<T>(act.beta);
  const std::string& t = act.type;
  if (t.empty()) {
    f.kind = FusedActivationKind::kNone;
  } else if (t == "relu") {
    f.kind = FusedActivationKind::kRelu;
  } else if (t == "relu6") {
    f.kind = FusedActivationKind::kRelu6;
  } else if (t == "leaky_relu") {
    f.kind = FusedActivationKind::kLeakyRelu;
  } else if (t == "hard_swish") {
    f.kind = FusedActivationKind::kHardSwish;
  } else if (t == "sigmoid") {
    f.kind = FusedActivationKind::kSigmoid;
  } else if (t == "swish") {
    f.kind = FusedActivationKind::kSwish;
  } else if (t == "hard_sigmoid") {
    f.kind = FusedActivationKind::kHardSigmoid;
  } else {
    // The op definitions restrict the attribute; this is an internal error.
    PADDLE_THROW(platform::errors::Unimplemented("Fused activation '", t,
                                                 "' has no CUDA kernel."));
  }
  return f;
}

/// data[i] = act(data[i]) on the stream, for fused ops whose main work is
/// a library call (no launch when there is no activation).
template <typename T>
void ApplyFusedActivation(const CUDADeviceContext& dev,
                          const operators::FusedActivation& act,
                          T* data,
                          int64_t n) {
  const FusedActivationFunctor<T> f = MakeFusedActivation<T>(act);
  if (f.kind == FusedActivationKind::kNone) return;
  LaunchActivation(dev, data, data, n, f);
}

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite
