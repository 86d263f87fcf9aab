// set_value on CPU (ops.md 9.4): copy Input to Out unless they are the
// same tensor, broadcast the value to the region's shape, then write it
// element by element into the strided region.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "kernels/cpu/plain/value_list_kernel.h"
#include "operators/set_value_region.h"
#include "operators/value_list_attr.h"

namespace paddle_lite {
namespace kernels {

namespace {

// Row-major strides of `dims` (element units).
std::vector<int64_t> Strides(const framework::DDim& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return strides;
}

// Visits the `count` elements of a walk over `dims` in row-major order:
// fn(offset) where offset = base + sum(index[d] * strides[d]).
template <typename Fn>
void Walk(const framework::DDim& dims,
          const std::vector<int64_t>& strides,
          int64_t base,
          int64_t count,
          Fn&& fn) {
  const int rank = static_cast<int>(dims.size());
  std::vector<int64_t> index(rank, 0);
  int64_t offset = base;
  for (int64_t n = 0; n < count; ++n) {
    fn(offset);
    for (int d = rank - 1; d >= 0; --d) {
      offset += strides[d];
      if (++index[d] < dims[d]) break;
      offset -= strides[d] * dims[d];
      index[d] = 0;
    }
  }
}

}  // namespace

template <typename T>
class SetValueKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* input = ctx.Input<framework::Tensor>("Input");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const operators::SetValueRegion region =
        operators::ComputeSetValueRegion(ctx);
    const int64_t count = framework::Product(region.dims);

    // The value broadcast to the region, built before Out is written in
    // case the value tensor shares Out's memory.
    framework::Tensor dense;
    if (count > 0) Broadcast(ctx, region.value_dims, &dense);

    // Out aliases Input in most programs (x[...] = v is in place); Input
    // is only read when the two differ.
    const T* in = input->numel() > 0 ? input->data<T>() : nullptr;
    T* o = out->mutable_data<T>(ctx.GetPlace());
    if (o != in && input->numel() > 0) {
      std::memcpy(o, in, input->numel() * sizeof(T));
    }
    if (count == 0) return;

    const std::vector<int64_t> in_strides = Strides(input->dims());
    std::vector<int64_t> strides(in_strides.size());
    int64_t base = 0;
    for (size_t d = 0; d < strides.size(); ++d) {
      strides[d] = in_strides[d] * region.steps[d];
      base += in_strides[d] * region.starts[d];
    }
    const T* v = dense.data<T>();
    int64_t n = 0;
    Walk(region.dims, strides, base, count,
         [&](int64_t offset) { o[offset] = v[n++]; });
  }

 private:
  // dense = the value (ValueTensor, else the attribute list in `shape`)
  // broadcast to `dims`: leading 1s of the value dropped, the rest aligned
  // with the trailing dims of `dims` (shape inference checked they fit).
  static void Broadcast(const framework::ExecutionContext& ctx,
                        const framework::DDim& dims,
                        framework::Tensor* dense) {
    framework::Tensor from_attr;
    const framework::Tensor* value =
        ctx.Input<framework::Tensor>("ValueTensor");
    if (value == nullptr) {
      const operators::ValueListAttr list = operators::ChooseValueList(
          ctx.op(),
          static_cast<framework::DataType>(ctx.Attr<int32_t>("dtype")));
      from_attr.Resize(ctx.Attr<std::vector<int64_t>>("shape"));
      T* data = from_attr.mutable_data<T>(platform::CPUPlace());
      if (list.size > 0) ReadValueList<T>(ctx, list.name, list.size, data);
      value = &from_attr;
    }
    framework::DDim value_dims = value->dims();
    size_t lead = 0;
    while (lead < value_dims.size() && value_dims[lead] == 1) ++lead;
    value_dims.erase(value_dims.begin(), value_dims.begin() + lead);

    // Strides of the value per dim of `dims`; 0 where it is broadcast.
    const std::vector<int64_t> value_strides = Strides(value_dims);
    std::vector<int64_t> strides(dims.size(), 0);
    const size_t skip = dims.size() - value_dims.size();
    for (size_t i = 0; i < value_dims.size(); ++i) {
      if (value_dims[i] != 1) strides[skip + i] = value_strides[i];
    }
    const int64_t count = framework::Product(dims);
    dense->Resize(dims);
    T* d = dense->mutable_data<T>(platform::CPUPlace());
    const T* src = value->data<T>();
    int64_t n = 0;
    Walk(dims, strides, 0, count,
         [&](int64_t offset) { d[n++] = src[offset]; });
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(
    set_value,
    PLAIN,
    CPUPlace,
    paddle_lite::kernels::SetValueKernel<float>,
    paddle_lite::kernels::SetValueKernel<double>,
    paddle_lite::kernels::SetValueKernel<int32_t>,
    paddle_lite::kernels::SetValueKernel<int64_t>,
    paddle_lite::kernels::SetValueKernel<bool>,
    paddle_lite::kernels::SetValueKernel<int16_t>,
    paddle_lite::kernels::SetValueKernel<uint8_t>,
    paddle_lite::kernels::SetValueKernel<int8_t>,
    paddle_lite::kernels::SetValueKernel<paddle_lite::platform::float16>,
    paddle_lite::kernels::SetValueKernel<paddle_lite::platform::bfloat16>);
