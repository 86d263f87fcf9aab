// The geometry of fused_inverted_residual
// (operators/fused_inverted_residual.cc), shared by its shape inference and
// its kernels: a 1x1 convolution that expands the channels, a depthwise
// convolution (the op's window attributes), and a 1x1 convolution that
// projects them, NCHW.
#pragma once

#include "framework/ddim.h"
#include "framework/operator.h"
#include "framework/tensor.h"
#include "operators/conv_pool_shape.h"

namespace paddle_lite {
namespace operators {

struct InvertedResidualGeometry {
  Conv2DGeometry expand;     ///< Input -> the expanded map
  Conv2DGeometry depthwise;  ///< the expanded map -> the depthwise map
  Conv2DGeometry project;    ///< the depthwise map -> Output
};

/// Works out the three convolutions of `op` (its strides, paddings,
/// padding_algorithm, dilations, groups and data_format are the depthwise
/// one's) for Input [N, C, H, W], Filter [E, C, 1, 1], DepthwiseFilter
/// [E, 1, KH, KW] and ProjectFilter [M, E, 1, 1]. Throws InvalidArgument
/// naming the op when a filter does not fit, groups is not E, or
/// data_format is channel-last.
InvertedResidualGeometry ResolveInvertedResidual(
    const framework::OperatorBase& op,
    const framework::DDim& input,
    const framework::DDim& filter,
    const framework::DDim& depthwise_filter,
    const framework::DDim& project_filter);

/// ResolveInvertedResidual for the running op's inputs.
inline InvertedResidualGeometry ResolveInvertedResidual(
    const framework::ExecutionContext& ctx) {
  return ResolveInvertedResidual(
      ctx.op(), ctx.Input<framework::Tensor>("Input")->dims(),
      ctx.Input<framework::Tensor>("Filter")->dims(),
      ctx.Input<framework::Tensor>("DepthwiseFilter")->dims(),
      ctx.Input<framework::Tensor>("ProjectFilter")->dims());
}

}  // namespace operators
}  // namespace paddle_lite
