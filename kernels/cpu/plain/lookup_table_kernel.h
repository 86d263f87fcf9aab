// The CPU kernel of lookup_table and lookup_table_v2 (spec §11.1, §11.2):
// Out row i = W[Ids[i]], or zeros where Ids[i] == padding_idx. The ops
// differ only in Out's shape, which InferShape set. Private to
// kernels/cpu/plain.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "framework/kernel_registry.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class LookupTableKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* ids = ctx.Input<framework::Tensor>("Ids");
    if (ids->dtype() == framework::DataType::kInt32) {
      Run<int32_t>(ctx);
    } else {
      Run<int64_t>(ctx);
    }
  }

 private:
  template <typename IdT>
  static void Run(const framework::ExecutionContext& ctx) {
    const auto* table = ctx.Input<framework::Tensor>("W");
    const auto* ids = ctx.Input<framework::Tensor>("Ids");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const int64_t rows = table->dims()[0];
    const int64_t width = table->dims()[1];
    const int64_t padding_idx = ctx.Attr<int64_t>("padding_idx");
    T* o = out->mutable_data<T>(ctx.GetPlace());
    const int64_t n = ids->numel();
    if (n == 0 || width == 0) return;
    const IdT* id = ids->data<IdT>();
    const T* w = rows > 0 ? table->data<T>() : nullptr;
    // Rows are copied one by one: an embedding lookup is bound by memory,
    // and checking while copying stops at the first bad id.
    for (int64_t i = 0; i < n; ++i) {
      const int64_t v = static_cast<int64_t>(id[i]);
      T* dst = o + i * width;
      // padding_idx is tested first, as Paddle does: it may lie outside
      // the table.
      if (padding_idx != -1 && v == padding_idx) {
        std::fill(dst, dst + width, T(0));
        continue;
      }
      PADDLE_ENFORCE(
          v >= 0 && v < rows,
          errors::InvalidArgument(ctx.op().Type(), ": Ids element ", i, " is ",
                                  v, ", outside the table W of ", rows,
                                  " rows (ids must lie in [0, ", rows, "))"));
      std::memcpy(dst, w + v * width, width * sizeof(T));
    }
  }
};

}  // namespace kernels
}  // namespace paddle_lite
