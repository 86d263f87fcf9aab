// Kernel of the ops that only reinterpret dims (reshape2, squeeze2,
// unsqueeze2, flatten2, flatten_contiguous_range): Out shares X's buffer,
// nothing is copied. Private to kernels/cpu/plain.
#pragma once

#include <utility>

#include "framework/kernel_registry.h"

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
