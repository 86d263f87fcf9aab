// concat on CPU: each row of Out (the dims before axis) is the rows of the
// inputs, one after another.
#include <cstring>
#include <vector>

#include "framework/kernel_registry.h"
#include "operators/shape_op_utils.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class ConcatKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    auto* out = ctx.Output<framework::Tensor>("Out");
    T* o = out->mutable_data<T>(ctx.GetPlace());
    if (out->numel() == 0) return;
    const int rank = out->rank();
    int64_t axis = ctx.Attr<int32_t>("axis");
    if (ctx.HasInput("AxisTensor")) {
      axis = operators::IntTensorValues(
          *ctx.Input<framework::Tensor>("AxisTensor"), "concat",
          "AxisTensor")[0];
    }
    const int a = operators::NormalizeAxis(axis, rank, "concat", "axis");
    const int64_t outer = framework::Product(out->dims(), 0, a);
    const int64_t out_row = out->numel() / outer;

    // Empty inputs contribute nothing (and may have another rank).
    struct Part {
      const T* data;
      int64_t row;     // elements per outer row
      int64_t offset;  // where its rows start inside an Out row
    };
    std::vector<Part> parts;
    int64_t offset = 0;
    for (const framework::Tensor* x : ctx.MultiInput<framework::Tensor>("X")) {
      if (x->numel() == 0) continue;
      const int64_t row = x->numel() / outer;
      parts.push_back({x->data<T>(), row, offset});
      offset += row;
    }
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        outer, static_cast<double>(out_row), [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) {
            for (const Part& p : parts) {
              std::memcpy(o + r * out_row + p.offset, p.data + r * p.row,
                          sizeof(T) * p.row);
            }
          }
        });
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    concat,
    PLAIN,
    CPUPlace,
    paddle_lite::kernels::ConcatKernel<float>,
    paddle_lite::kernels::ConcatKernel<double>,
    paddle_lite::kernels::ConcatKernel<int32_t>,
    paddle_lite::kernels::ConcatKernel<int64_t>,
    paddle_lite::kernels::ConcatKernel<bool>,
    paddle_lite::kernels::ConcatKernel<uint8_t>,
    paddle_lite::kernels::ConcatKernel<int8_t>,
    paddle_lite::kernels::ConcatKernel<int16_t>,
    paddle_lite::kernels::ConcatKernel<paddle_lite::platform::float16>,
    paddle_lite::kernels::ConcatKernel<paddle_lite::platform::bfloat16>);
