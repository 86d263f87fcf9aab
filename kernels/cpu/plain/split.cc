// split on CPU: each outer row of X (the dims before axis) is cut into the
// rows of the outputs, one after another.
#include <cstring>
#include <vector>

#include "framework/kernel_registry.h"
#include "operators/shape_op_utils.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class SplitKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto outs = ctx.MultiOutput<framework::Tensor>("Out");
    int64_t axis = ctx.Attr<int32_t>("axis");
    if (ctx.HasInput("AxisTensor")) {
      axis = operators::IntTensorValues(
          *ctx.Input<framework::Tensor>("AxisTensor"), "split",
          "AxisTensor")[0];
    }
    const int a = operators::NormalizeAxis(axis, x->rank(), "split", "axis");
    const int64_t outer = framework::Product(x->dims(), 0, a);
    const int64_t x_row = framework::Product(x->dims(), a, x->rank());

    struct Part {
      T* data;
      int64_t row;     // elements per outer row
      int64_t offset;  // where its rows start inside an X row
    };
    std::vector<Part> parts;
    int64_t offset = 0;
    for (framework::Tensor* out : outs) {
      T* data = out->mutable_data<T>(ctx.GetPlace());
      const int64_t row = framework::Product(out->dims(), a, out->rank());
      if (row > 0) parts.push_back({data, row, offset});
      offset += row;
    }
    if (x->numel() == 0) return;
    const T* in = x->data<T>();
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        outer, static_cast<double>(x_row), [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) {
            for (const Part& p : parts) {
              std::memcpy(p.data + r * p.row, in + r * x_row + p.offset,
                          sizeof(T) * p.row);
            }
          }
        });
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    split,
    PLAIN,
    CPUPlace,
    paddle_lite::kernels::SplitKernel<float>,
    paddle_lite::kernels::SplitKernel<double>,
    paddle_lite::kernels::SplitKernel<int32_t>,
    paddle_lite::kernels::SplitKernel<int64_t>,
    paddle_lite::kernels::SplitKernel<bool>,
    paddle_lite::kernels::SplitKernel<uint8_t>,
    paddle_lite::kernels::SplitKernel<int8_t>,
    paddle_lite::kernels::SplitKernel<int16_t>,
    paddle_lite::kernels::SplitKernel<paddle_lite::platform::float16>,
    paddle_lite::kernels::SplitKernel<paddle_lite::platform::bfloat16>);
