// sequence_pool on CPU (ops.md 16.3): each sequence of X's last LoD level
// becomes one row of Out.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace kernels {

namespace {

enum class PoolType { kAverage, kSum, kSqrt, kMax, kLast, kFirst };

// The op's InEnum check has accepted only these names.
PoolType ParsePoolType(const std::string& name) {
  if (name == "SUM") return PoolType::kSum;
  if (name == "SQRT") return PoolType::kSqrt;
  if (name == "MAX") return PoolType::kMax;
  if (name == "LAST") return PoolType::kLast;
  if (name == "FIRST") return PoolType::kFirst;
  return PoolType::kAverage;
}

}  // namespace

template <typename T>
class SequencePoolKernel : public framework::OpKernel<T> {
 public:
  void Compute(const framework::ExecutionContext& ctx) const override {
    const auto* x = ctx.Input<framework::Tensor>("X");
    auto* out = ctx.Output<framework::Tensor>("Out");
    const PoolType type = ParsePoolType(ctx.Attr<std::string>("pooltype"));
    const T pad_value = static_cast<T>(ctx.Attr<float>("pad_value"));
    T* o = out->mutable_data<T>(ctx.GetPlace());
    // MaxIndex is only written for MAX, and only when the program has it.
    int32_t* index = nullptr;
    if (type == PoolType::kMax) {
      auto* max_index = ctx.Output<framework::Tensor>("MaxIndex");
      if (max_index != nullptr) {
        index = max_index->mutable_data<int32_t>(ctx.GetPlace());
      }
    }
    const int64_t width = framework::Product(x->dims(), 1, x->rank());
    const int64_t sequences = out->dims()[0];
    if (sequences == 0 || width == 0) return;
    const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
    // The shape step checked X's LoD; a kernel reading another (an output
    // written over its input) must not index past it.
    PADDLE_ENFORCE(!x->lod().empty() && x->lod().back().size() ==
                                            static_cast<size_t>(sequences) + 1,
                   platform::errors::InvalidArgument(
                       "sequence_pool: X's LoD does not give the ", sequences,
                       " sequences its output has"));
    const std::vector<size_t>& offsets = x->lod().back();

    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        sequences, static_cast<double>(x->numel()) / sequences + width,
        [&](int64_t begin, int64_t end) {
          for (int64_t s = begin; s < end; ++s) {
            const int64_t first = static_cast<int64_t>(offsets[s]);
            const int64_t last = static_cast<int64_t>(offsets[s + 1]);
            T* dst = o + s * width;
            int32_t* idx = index ? index + s * width : nullptr;
            if (first == last) {
              std::fill(dst, dst + width, pad_value);
              if (idx) std::fill(idx, idx + width, -1);
              continue;
            }
            PoolOne(type, in, first, last, width, dst, idx);
          }
        });
  }

 private:
  // Rows [first, last) of `in` (non-empty) pooled into dst[0, width).
  // Sums run row by row in T, as Paddle's kernels add them.
  static void PoolOne(PoolType type,
                      const T* in,
                      int64_t first,
                      int64_t last,
                      int64_t width,
                      T* dst,
                      int32_t* idx) {
    switch (type) {
      case PoolType::kFirst:
        std::memcpy(dst, in + first * width, width * sizeof(T));
        return;
      case PoolType::kLast:
        std::memcpy(dst, in + (last - 1) * width, width * sizeof(T));
        return;
      case PoolType::kMax:
        // The first maximum wins (strict >); MaxIndex holds the row of X.
        std::memcpy(dst, in + first * width, width * sizeof(T));
        if (idx) std::fill(idx, idx + width, static_cast<int32_t>(first));
        for (int64_t r = first + 1; r < last; ++r) {
          const T* row = in + r * width;
          for (int64_t j = 0; j < width; ++j) {
            if (row[j] > dst[j]) {
              dst[j] = row[j];
              if (idx) idx[j] = static_cast<int32_t>(r);
            }
          }
        }
        return;
      default:
        break;
    }
    std::memcpy(dst, in + first * width, width * sizeof(T));
    for (int64_t r = first + 1; r < last; ++r) {
      const T* row = in + r * width;
      for (int64_t j = 0; j < width; ++j) dst[j] += row[j];
    }
    const T length = static_cast<T>(last - first);
    if (type == PoolType::kAverage) {
      for (int64_t j = 0; j < width; ++j) dst[j] /= length;
    } else if (type == PoolType::kSqrt) {
      const T root = std::sqrt(length);
      for (int64_t j = 0; j < width; ++j) dst[j] /= root;
    }
  }
};

}  // namespace kernels
}  // namespace paddle_lite

REGISTER_OP_KERNEL(sequence_pool,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::kernels::SequencePoolKernel<float>,
                   paddle_lite::kernels::SequencePoolKernel<double>);
