// The activations fused ops apply to their result in place (fused_conv2d,
// fc, fused_elementwise_*), one small functor each, with the formulas of
// the standalone activation kernels (see operators/fused_activation.h for
// the attributes). Private to kernels/cpu/plain.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "framework/kernel_registry.h"
#include "kernels/cpu/plain/activation_util.h"
#include "operators/fused_activation.h"
#include "platform/device_context.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace kernels {

using operators::FusedActivation;
using operators::FusedActivationOf;

namespace fused_activation {

template <typename T>
struct Relu {
  T operator()(T x) const { return x > T(0) ? x : T(0); }
};
template <typename T>
struct Relu6 {
  T threshold;
  T operator()(T x) const {
    T v = x > T(0) ? x : T(0);
    return v < threshold ? v : threshold;
  }
};
template <typename T>
struct LeakyRelu {
  T alpha;
  T operator()(T x) const { return x >= T(0) ? x : alpha * x; }
};
template <typename T>
struct HardSwish {  // Paddle's fixed threshold 6, scale 6, offset 3
  T operator()(T x) const {
    T v = x + T(3);
    v = v > T(0) ? v : T(0);
    v = v < T(6) ? v : T(6);
    return x * v / T(6);
  }
};
template <typename T>
struct Sigmoid {
  T operator()(T x) const { return T(1) / (T(1) + std::exp(-x)); }
};
template <typename T>
struct Swish {
  T beta;
  T operator()(T x) const { return x / (T(1) + std::exp(-beta * x)); }
};
template <typename T>
struct HardSigmoid {
  T slope;
  T offset;
  T operator()(T x) const {
    T v = slope * x + offset;
    v = v > T(1) ? T(1) : v;  // compared so that a NaN stays NaN
    return v < T(0) ? T(0) : v;
  }
};

template <typename T, typename F>
void Map(const platform::CPUDeviceContext& dev,
         F f,
         double cost,
         T* data,
         int64_t n) {
  dev.ParallelFor(n, cost, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) data[i] = f(data[i]);
  });
}

}  // namespace fused_activation

/// data[i] = act(data[i]) for i < n, split across the context's threads.
template <typename T>
void ApplyFusedActivation(const platform::CPUDeviceContext& dev,
                          const FusedActivation& act,
                          T* data,
                          int64_t n) {
  namespace fa = fused_activation;
  const T alpha = static_cast<T>(act.alpha);
  const T beta = static_cast<T>(act.beta);
  if (act.type.empty()) return;
  if constexpr (std::is_same_v<T, float>) {
    // The vectorized loops, when they have this activation.
    if (plain::HasFloatActivation(act.type)) {
      dev.ParallelFor(n, 4, [&](int64_t begin, int64_t end) {
        plain::ApplyFloatActivation(act.type, act.alpha, act.beta, data + begin,
                                    end - begin);
      });
      return;
    }
  }
  if (act.type == "relu") return fa::Map(dev, fa::Relu<T>{}, 1, data, n);
  if (act.type == "relu6") return fa::Map(dev, fa::Relu6<T>{beta}, 1, data, n);
  if (act.type == "leaky_relu") {
    return fa::Map(dev, fa::LeakyRelu<T>{alpha}, 1, data, n);
  }
  if (act.type == "hard_swish") {
    return fa::Map(dev, fa::HardSwish<T>{}, 4, data, n);
  }
  if (act.type == "sigmoid") return fa::Map(dev, fa::Sigmoid<T>{}, 20, data, n);
  if (act.type == "swish")
    return fa::Map(dev, fa::Swish<T>{alpha}, 20, data, n);
  if (act.type == "hard_sigmoid") {
    return fa::Map(dev, fa::HardSigmoid<T>{alpha, beta}, 4, data, n);
  }
  // The op definitions restrict the attribute; this is an internal error.
  PADDLE_THROW(platform::errors::Unimplemented("Fused activation '", act.type,
                                               "' has no CPU kernel."));
}

}  // namespace kernels
}  // namespace paddle_lite
