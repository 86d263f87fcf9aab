// The float depthwise convolution of the plain conv kernels (one input
// channel per group), compiled for AVX-512, AVX2 and the baseline and run
// the widest the CPU has: the default build targets the baseline ISA, and
// this loop is most of a mobile network's plain run. It makes no code per
// input size, so any new shape runs at full speed at once. Private to
// kernels/cpu/plain.
#pragma once

#include <cstdint>

namespace paddle_lite {
namespace operators {
struct Conv2DGeometry;
}  // namespace operators

namespace kernels {
namespace plain {

/// Output rows [begin, end) of a depthwise convolution, NCHW in and out;
/// row r is output row r % out_h of plane r / out_h (plane = n * M + m,
/// M = out_channels, a multiple of in_channels). filter is [M, 1, KH, KW];
/// bias is null or [M].
void DepthwiseConvRows(const operators::Conv2DGeometry& g,
                       const float* in,
                       const float* filter,
                       const float* bias,
                       float* out,
                       int64_t begin,
                       int64_t end);

}  // namespace plain
}  // namespace kernels
}  // namespace paddle_lite
