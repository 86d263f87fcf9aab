// Kernel of the ops that only reinterpret dims (reshape2, squeeze2,
// unsqueeze2, flatten2, flatten_contiguous_range): Out shares X's buffer,
// nothing is copied. The kernel never touches the bytes, so it serves
// every place: kernels/cpu/plain and kernels/cuda/plain register it.
#pragma once

#include <utility>

#include "framework/kernel_registry.h"
#include "platform/float16.h"

namespace paddle_lite {
namespace kernels {

/// Points Out at X's memory. T only selects the registration: the bytes
/// are never touched, so one template serves every element type.
template <typename T>
class ShareDataKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    if (out == x) return;  // in place: shape inference already set the dims
    // ShareDataWith takes X's dims and LoD too; Out keeps what shape
    // inference computed.
    framework::DDim dims = out->dims();
    framework::LoD lod = out->lod();
    out->ShareDataWith(*x);
    out->Resize(std::move(dims));
    out->set_lod(std::move(lod));
  }
};

}  // namespace kernels
}  // namespace paddle_lite

/// Every element type a view op registers, for REGISTER_OP_KERNEL.
#define PDLITE_SHARE_DATA_KERNELS                                  \
  paddle_lite::kernels::ShareDataKernel<float>,                    \
      paddle_lite::kernels::ShareDataKernel<double>,               \
      paddle_lite::kernels::ShareDataKernel<int32_t>,              \
      paddle_lite::kernels::ShareDataKernel<int64_t>,              \
      paddle_lite::kernels::ShareDataKernel<bool>,                 \
      paddle_lite::kernels::ShareDataKernel<uint8_t>,              \
      paddle_lite::kernels::ShareDataKernel<int8_t>,               \
      paddle_lite::kernels::ShareDataKernel<int16_t>,              \
      paddle_lite::kernels::ShareDataKernel<                       \
          paddle_lite::platform::float16>,                         \
      paddle_lite::kernels::ShareDataKernel<                       \
          paddle_lite::platform::bfloat16>
