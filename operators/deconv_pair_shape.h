// The geometry of fused_conv2d_transpose_pair
// (operators/fused_conv2d_transpose_pair.cc), shared by its shape
// inference and its kernels: two pixel-block deconvolutions (kernel =
// stride, no padding, dilation 1, one group, NCHW) in a row.
#pragma once

#include <string>

#include "framework/ddim.h"
#include "framework/operator.h"
#include "framework/tensor.h"
#include "operators/conv_pool_shape.h"

namespace paddle_lite {
namespace operators {

struct DeconvPairGeometry {
  Conv2DGeometry first;   ///< Input -> the map between
  Conv2DGeometry second;  ///< the map between -> Output
};

/// Works out both deconvolutions for Input [N, C, H, W], Filter [C, M1,
/// KH1, KW1] and Filter2 [M1, M2, KH2, KW2]. Throws InvalidArgument naming
/// `op` when a tensor is not 4-D, the channels do not chain, a kernel size
/// is not positive, or an output size is past 2^31.
DeconvPairGeometry ResolveDeconvPair(const std::string& op,
                                     const framework::DDim& input,
                                     const framework::DDim& filter,
                                     const framework::DDim& filter2);

/// ResolveDeconvPair for the running op's Input, Filter and Filter2.
inline DeconvPairGeometry ResolveDeconvPair(
    const framework::ExecutionContext& ctx) {
  return ResolveDeconvPair(ctx.op().Type(),
                           ctx.Input<framework::Tensor>("Input")->dims(),
                           ctx.Input<framework::Tensor>("Filter")->dims(),
                           ctx.Input<framework::Tensor>("Filter2")->dims());
}

}  // namespace operators
}  // namespace paddle_lite
