// sequence_conv on CPU (ops.md 16.2): each row's context window is
// gathered into one row of a [T, contextLength * D] matrix, which is then
// multiplied by Filter.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "framework/kernel_registry.h"
#include "kernels/cpu/plain/gemm.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

template <typename T>
class SequenceConvKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    const auto* filter = ctx.Input<framework::Tensor>("Filter");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const int64_t context_length = ctx.Attr<int32_t>("contextLength");
    const int64_t context_start = ctx.Attr<int32_t>("contextStart");
    const bool padding_trainable = ctx.Attr<bool>("paddingTrainable");
    const int64_t rows = x->dims()[0];
    const int64_t width = x->dims()[1];
    const int64_t col_width = context_length * width;
    T* o = out->mutable_data<T>(ctx.GetPlace());
    if (out->numel() == 0) return;
    if (width == 0) {
      // An empty window: every output is an empty sum.
      std::fill(o, o + out->numel(), T(0));
      return;
    }

    const T* in = x->data<T>();
    const T* padding = nullptr;
    if (padding_trainable) {
      padding = ctx.Input<framework::Tensor>("PaddingData")->data<T>();
    }
    // PaddingData holds the up_pad rows before a sequence, then the rows
    // after it: position p of a sequence of length n (p < 0 or p >= n) takes
    // row p + up_pad, or up_pad + (p - n). This is the row Paddle's
    // ContextProjectFunctor copies for every window position.
    const int64_t up_pad = std::max<int64_t>(0, -context_start);

    framework::Tensor col;
    col.Resize({rows, col_width});
    T* c = col.mutable_data<T>(platform::CPUPlace());
    const std::vector<size_t>& offsets = x->lod().back();
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    const int64_t sequences = static_cast<int64_t>(offsets.size()) - 1;
    dev.ParallelFor(
        sequences, static_cast<double>(rows * col_width) / sequences,
        [&](int64_t begin, int64_t end) {
          for (int64_t s = begin; s < end; ++s) {
            const int64_t first = static_cast<int64_t>(offsets[s]);
            const int64_t length = static_cast<int64_t>(offsets[s + 1]) - first;
            for (int64_t t = 0; t < length; ++t) {
              T* dst = c + (first + t) * col_width;
              for (int64_t k = 0; k < context_length; ++k, dst += width) {
                const int64_t p = t + context_start + k;
                const T* src = nullptr;
                if (p >= 0 && p < length) {
                  src = in + (first + p) * width;
                } else if (padding != nullptr) {
                  const int64_t pad_row =
                      p < 0 ? p + up_pad : up_pad + p - length;
                  src = padding + pad_row * width;
                }
                if (src != nullptr) {
                  std::memcpy(dst, src, width * sizeof(T));
                } else {
                  std::fill(dst, dst + width, T(0));
                }
              }
            }
          }
        });

    GemmShape shape;
    shape.m = rows;
    shape.n = filter->dims()[1];
    shape.k = col_width;
    BatchedGemm<T>(dev, shape, T(1), col, {0}, *filter, {0}, o);
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(sequence_conv,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::SequenceConvKernel<float>,
                   paddle_lite::kernels::SequenceConvKernel<double>);
