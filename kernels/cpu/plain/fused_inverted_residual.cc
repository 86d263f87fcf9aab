// fused_inverted_residual on CPU, NCHW, on the plain convolution kernels'
// paths (conv_kernel.h): the expanding 1x1 convolution (a GEMM) into a
// buffer of the expanded map and its activation, the depthwise one into a
// buffer of the filtered map and its activation, then the projecting 1x1
// one into Output, plus the residual, and its activation. It is the
// reference the MKLDNN kernel is checked against, and what a predictor's
// generic clone runs for a shape it has not made: as fast there as the
// three convolutions it replaces.
#include <cstdint>

#include "kernels/cpu/plain/conv_kernel.h"
#include "kernels/cpu/plain/fused_activation.h"
#include "operators/inverted_residual_shape.h"
#include "platform/allocator.h"

namespace paddle_lite {
namespace kernels {
namespace {

template <typename T>
const T* DataOrNull(const framework::Tensor* t) {
  return t != nullptr ? t->data<T>() : nullptr;
}

template <typename T>
class FusedInvertedResidualKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const operators::InvertedResidualGeometry g =
        operators::ResolveInvertedResidual(ctx);
    auto* output = ctx.Output<framework::Tensor>("Output");
    T* out = output->mutable_data<T>(ctx.GetPlace());
    if (output->numel() == 0) return;
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    // The maps between come from the run's host allocator (the predictor's
    // pool), whose pages earlier runs touched.
    platform::Allocator* allocator = platform::GetAllocator(ctx.GetPlace());
    const int64_t expanded_size = framework::Product(g.expand.OutputDims());
    platform::AllocationPtr expanded_buffer =
        allocator->Allocate(sizeof(T) * static_cast<size_t>(expanded_size));
    T* expanded = static_cast<T*>(expanded_buffer->ptr());
    conv_detail::GemmConv(
        dev, g.expand, ctx.Input<framework::Tensor>("Input")->data<T>(),
        ctx.Input<framework::Tensor>("Filter")->data<T>(),
        DataOrNull<T>(ctx.Input<framework::Tensor>("Bias")), expanded);
    ApplyFusedActivation(dev, FusedActivationOf(ctx), expanded, expanded_size);
    const int64_t filtered_size = framework::Product(g.depthwise.OutputDims());
    platform::AllocationPtr filtered_buffer =
        allocator->Allocate(sizeof(T) * static_cast<size_t>(filtered_size));
    T* filtered = static_cast<T*>(filtered_buffer->ptr());
    conv_detail::DepthwiseConv(
        dev, g.depthwise, expanded,
        ctx.Input<framework::Tensor>("DepthwiseFilter")->data<T>(),
        DataOrNull<T>(ctx.Input<framework::Tensor>("DepthwiseBias")), filtered);
    expanded_buffer.reset();
    ApplyFusedActivation(dev, FusedActivationOf(ctx, "2"), filtered,
                         filtered_size);
    conv_detail::GemmConv(
        dev, g.project, filtered,
        ctx.Input<framework::Tensor>("ProjectFilter")->data<T>(),
        DataOrNull<T>(ctx.Input<framework::Tensor>("ProjectBias")), out);
    if (const T* residual =
            DataOrNull<T>(ctx.Input<framework::Tensor>("ResidualData"))) {
      dev.ParallelFor(output->numel(), 1, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) out[i] += residual[i];
      });
    }
    ApplyFusedActivation(dev, FusedActivationOf(ctx, "3"), out,
                         output->numel());
  }
};

}  // namespace
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(fused_inverted_residual,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::FusedInvertedResidualKernel<float>,
                   paddle_lite::kernels::FusedInvertedResidualKernel<double>);
