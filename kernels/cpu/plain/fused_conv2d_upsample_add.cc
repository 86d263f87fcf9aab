// fused_conv2d_upsample_add on CPU, NCHW: fused_conv2d's kernel
// (fused_conv_kernel.h), whose residual add reads each output row's
// ResidualData source row through the nearest index.
#include <cstdint>
#include <vector>

#include "kernels/cpu/plain/fused_conv_kernel.h"
#include "operators/interp_op.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class FusedConvUpsampleAddKernel : public FusedConvKernel<T> {
 protected:
  void AddResidual(const framework::ExecutionContext& ctx,
                   const platform::CPUDeviceContext& dev,
                   const operators::Conv2DGeometry& g,
                   const framework::Tensor& residual,
                   T* out) const override {
    const framework::DDim& r = residual.dims();
    const std::vector<int64_t> rows = operators::NearestSourceIndex(
        r[2], g.out_h, ctx.Attr<float>("scale_h"), false);
    const std::vector<int64_t> columns = operators::NearestSourceIndex(
        r[3], g.out_w, ctx.Attr<float>("scale_w"), false);
    const T* source = residual.data<T>();
    // One task per output row of a channel of an image.
    dev.ParallelFor(
        g.batch * g.out_channels * g.out_h, static_cast<double>(g.out_w),
        [&](int64_t begin, int64_t end) {
          for (int64_t task = begin; task < end; ++task) {
            const int64_t plane = task / g.out_h;  // n * M + m
            const T* from =
                source + (plane * r[2] + rows[task % g.out_h]) * r[3];
            T* to = out + task * g.out_w;
            for (int64_t x = 0; x < g.out_w; ++x) to[x] += from[columns[x]];
          }
        });
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(fused_conv2d_upsample_add,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::FusedConvUpsampleAddKernel<float>,
                   paddle_lite::kernels::FusedConvUpsampleAddKernel<double>);
