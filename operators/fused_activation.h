// The activation attributes of the fused ops the graph passes create
// (fused_conv2d, fused_elementwise_add, fused_elementwise_mul), as Paddle's
// oneDNN fusion passes define them. The activation is applied to the op's
// result; `fuse_alpha` and `fuse_beta` carry its attributes:
//
//   fuse_activation | formula (ops.md 5)              | fuse_alpha | fuse_beta
//   ""              | x (no activation)               | -          | -
//   "relu"          | max(x, 0)                       | -          | -
//   "relu6"         | min(max(x, 0), fuse_beta)       | -          | threshold
//   "leaky_relu"    | x >= 0 ? x : fuse_alpha * x     | alpha      | -
//   "hard_swish"    | x * min(max(x + 3, 0), 6) / 6   | -          | -
//   "sigmoid"       | 1 / (1 + exp(-x))               | -          | -
//   "swish"         | x / (1 + exp(-fuse_alpha * x))  | beta       | -
//   "hard_sigmoid"  | max(0, min(1, fuse_alpha * x + fuse_beta))
//                                                     | slope      | offset
//
// hard_swish has Paddle's fixed threshold 6, scale 6 and offset 3: a
// hard_swish with other attributes is not fused.
#pragma once

#include <string>
#include <vector>

#include "framework/operator.h"

namespace paddle_lite {
namespace operators {

/// Every valid value of the `fuse_activation` attribute.
inline std::vector<std::string> FusedActivationNames() {
  return {"",           "relu",    "relu6", "leaky_relu",
          "hard_swish", "sigmoid", "swish", "hard_sigmoid"};
}

inline constexpr char kFuseActivationDoc[] =
    "activation applied to the result: '' (none), relu, relu6, leaky_relu, "
    "hard_swish, sigmoid, swish or hard_sigmoid";
inline constexpr char kFuseAlphaDoc[] =
    "leaky_relu: alpha; swish: beta; hard_sigmoid: slope";
inline constexpr char kFuseBetaDoc[] = "relu6: threshold; hard_sigmoid: offset";

/// An activation and its parameters, as the fuse_* attributes give them.
struct FusedActivation {
  std::string type;  // "" = none
  float alpha = 0.0f;
  float beta = 0.0f;
};

/// Reads fuse_activation, fuse_alpha and fuse_beta of the running op
/// (each name with `suffix` appended: "2" for a fused op's second one).
inline FusedActivation FusedActivationOf(const framework::ExecutionContext& ctx,
                                         const std::string& suffix = "") {
  return {ctx.Attr<std::string>("fuse_activation" + suffix),
          ctx.Attr<float>("fuse_alpha" + suffix),
          ctx.Attr<float>("fuse_beta" + suffix)};
}

}  // namespace operators
}  // namespace paddle_lite
