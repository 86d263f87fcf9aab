// transpose2 on the CUDA place: Out[j0, ..., jn] = X[i] with
// i[axis[k]] = j[k], a strided gather (tiled when the two innermost merged
// dims swap). XShape is left alone, as on the CPU.
#include <vector>

#include "kernels/cuda/cuda_helper.h"
#include "kernels/cuda/plain/strided_copy_util.cuh"

namespace paddle_lite {
namespace kernels {
namespace cuda {

template <typename T>
class Transpose2CUDAKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const auto axis = ctx.Attr<std::vector<int32_t>>("axis");
    const framework::DDim& x_dims = x->dims();
    const int rank = static_cast<int>(x_dims.size());
    T* o = AllocateOutput<T>(ctx, out);
    if (out->numel() == 0) return;
    // Stride in X of each output dim.
    std::vector<int64_t> x_strides(rank, 1);
    for (int i = rank - 2; i >= 0; --i) {
      x_strides[i] = x_strides[i + 1] * x_dims[i + 1];
    }
    std::vector<int64_t> out_dims(rank);
    std::vector<int64_t> strides(rank);
    for (int i = 0; i < rank; ++i) {
      const int a = axis[i] < 0 ? axis[i] + rank : axis[i];
      out_dims[i] = x_dims[a];
      strides[i] = x_strides[a];
    }
    CopyStrided(DeviceContextOf(ctx), x->data<T>(), o,
                CoalesceView(out_dims, strides, "transpose2"));
  }
};

}  // namespace cuda
}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(transpose2,
                   PLAIN,
                   CUDAPlace,
                   paddle_lite::kernels::cuda::Transpose2CUDAKernel<float>,
                   paddle_lite::kernels::cuda::Transpose2CUDAKernel<double>,
                   paddle_lite::kernels::cuda::Transpose2CUDAKernel<int32_t>,
                   paddle_lite::kernels::cuda::Transpose2CUDAKernel<int64_t>);
