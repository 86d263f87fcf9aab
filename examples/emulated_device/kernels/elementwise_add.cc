// elementwise_add on the emu device, with Paddle's broadcast rule (spec
// §6.1, resolved by the core's operators/elementwise_shape.h).
#include <vector>

#include "emu_device.h"
#include "framework/kernel_registry.h"
#include "operators/elementwise_shape.h"

namespace emu {

using paddle_lite::framework::DDim;
using paddle_lite::framework::ExecutionContext;
using paddle_lite::framework::Tensor;

namespace {

// Row-major strides of `dims`, 0 where a dim is 1 (that operand is
// broadcast along it).
std::vector<int64_t> BroadcastStrides(const DDim& dims) {
  std::vector<int64_t> strides(dims.size(), 0);
  int64_t step = 1;
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    strides[i] = dims[i] == 1 ? 0 : step;
    step *= dims[i];
  }
  return strides;
}

}  // namespace

template <typename T>
class ElementwiseAddKernel : public paddle_lite::framework::OpKernel<T> {
 public:
  void Compute(const ExecutionContext& ctx) const override {
    const Tensor* x = ctx.Input<Tensor>("X");
    const Tensor* y = ctx.Input<Tensor>("Y");
    Tensor* out = ctx.Output<Tensor>("Out");
    CheckOnDevice(*x, "elementwise_add", "X");
    CheckOnDevice(*y, "elementwise_add", "Y");
    auto b = paddle_lite::operators::BroadcastElementwiseDims(
        "elementwise_add", x->dims(), y->dims(), ctx.Attr<int>("axis"));
    const T* xs = x->data<T>();
    const T* ys = y->data<T>();
    T* o = out->mutable_data<T>(ctx.GetPlace());
    const std::vector<int64_t> sx = BroadcastStrides(b.x);
    const std::vector<int64_t> sy = BroadcastStrides(b.y);
    const int rank = static_cast<int>(b.out.size());
    std::vector<int64_t> index(rank, 0);  // odometer over the output
    int64_t ix = 0, iy = 0;
    for (int64_t i = 0; i < out->numel(); ++i) {
      o[i] = xs[ix] + ys[iy];
      for (int d = rank - 1; d >= 0; --d) {
        ix += sx[d];
        iy += sy[d];
        if (++index[d] < b.out[d]) break;
        ix -= sx[d] * b.out[d];
        iy -= sy[d] * b.out[d];
        index[d] = 0;
      }
    }
    ctx.device_context<EmuDeviceContext>().Launch();
  }
};

}  // namespace emu

REGISTER_OP_DEVICE_KERNEL(elementwise_add,
                          PLAIN,
                          emu::kDeviceType,
                          emu::ElementwiseAddKernel<float>);
