// fc on cuBLAS: one GEMM of Input flattened to [M, K] with W [K, N], then
// the bias and the activation in one epilogue pass over the rows
// (kernels/cuda/fused_epilogue_util.h).
#include <string>
#include <type_traits>

#include "framework/kernel_registry.h"
#include "kernels/cuda/cuda_helper.h"
#include "kernels/cuda/fused_epilogue_util.h"
#include "kernels/cuda/plain/cublas_gemm_util.h"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
class FcCUDAKernel : public framework::OpKernel<T> {
  static_assert(std::is_same_v<T, float>, "the cuBLAS fc is fp32");

 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* input = ctx.Input<framework::Tensor>("Input");
    const auto* w = ctx.Input<framework::Tensor>("W");
    const auto* bias = ctx.Input<framework::Tensor>("Bias");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const int in_num_col_dims = ctx.Attr<int>("in_num_col_dims");
    CublasGemmShape shape;
    shape.m = framework::Product(input->dims(), 0, in_num_col_dims);
    shape.k = framework::Product(input->dims(), in_num_col_dims, input->rank());
    shape.n = w->dims()[1];
    float* o = AllocateOutput<float>(ctx, out);
    const CUDADeviceContext& dev = DeviceContextOf(ctx);
    CublasBatchedGemm(dev, shape, 1.0f, *input, /*a_offsets=*/{0}, *w,
                      /*b_offsets=*/{0}, o);
    if (out->numel() == 0) return;
    FusedEpilogue epilogue;
    epilogue.bias = bias != nullptr ? bias->data<float>() : nullptr;
    epilogue.channels = shape.n;  // one bias per column of every row
    epilogue.inner = 1;
    epilogue.act = MakeEpilogueActivation(
        ctx.Attr<std::string>("activation_type"), 0.0f, 0.0f);
    LaunchFusedEpilogue(dev.stream(), epilogue, o, o, out->numel());
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(fc,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::FcCUDAKernel<float>);
