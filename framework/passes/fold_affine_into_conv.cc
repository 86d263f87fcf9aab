// fold_affine_into_conv: a conv2d / depthwise_conv2d (NCHW) whose output
// is read only by an elementwise_mul with a constant s, then possibly by an
// elementwise_add of a constant t, each one value per output channel or a
// single value (PP-LCNetV3's learnable affine blocks, y = s * conv(x) + t,
// in PP-OCRv4; a single value may be either operand), becomes the convolution
// alone: the filter scaled per output channel, Bias = s * Bias + t. Both are
// new constants ("@affine_folded"); the originals are never changed. Runs after
// fuse_conv_bias, which binds the bias first, and before fuse_conv_activation.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "framework/pass.h"
#include "framework/passes/pass_utils.h"

namespace paddle_lite {
namespace framework {
namespace passes {
namespace {

/// Value `c` of a per-channel or single-value constant.
template <typename T>
T ChannelValue(const Tensor& t, int64_t c) {
  return t.data<T>()[t.numel() == 1 ? 0 : c];
}

template <typename T>
void Fold(const Tensor& filter,
          const Tensor* bias,
          const Tensor& scale,
          const Tensor* shift,
          Tensor* new_filter,
          Tensor* new_bias) {
  const int64_t channels = filter.dims()[0];
  const int64_t per_channel = filter.numel() / channels;
  new_filter->Resize(filter.dims());
  T* w = new_filter->mutable_data<T>(platform::CPUPlace{});
  const T* from = filter.data<T>();
  new_bias->Resize({channels});
  T* b = new_bias->mutable_data<T>(platform::CPUPlace{});
  for (int64_t c = 0; c < channels; ++c) {
    const T s = ChannelValue<T>(scale, c);
    for (int64_t i = 0; i < per_channel; ++i) {
      w[c * per_channel + i] = from[c * per_channel + i] * s;
    }
    const T b0 = bias != nullptr ? bias->data<T>()[c] : T(0);
    b[c] = b0 * s + (shift != nullptr ? ChannelValue<T>(*shift, c) : T(0));
  }
}

class FoldAffineIntoConvPass : public Pass {
 public:
  std::vector<std::string> Apply(ProgramDesc* program,
                                 Scope* weights) const override {
    std::vector<std::string> changes;
    for (int i = 0; i < static_cast<int>(program->blocks[0].ops.size()); ++i) {
      std::string change;
      if (TryFold(program, weights, i, &change)) changes.push_back(change);
    }
    return changes;
  }

 private:
  static bool TryFold(ProgramDesc* program,
                      Scope* weights,
                      int i,
                      std::string* change) {
    BlockDesc& block = program->blocks[0];
    FoldableConv conv;
    if (!FoldableConvAt(*program, *weights, i, /*transposed_too=*/false,
                        &conv)) {
      return false;
    }
    const DataType dtype = conv.dtype;
    const int64_t channels = conv.channels;
    // conv -> elementwise_mul(s) [-> elementwise_add(t)].
    const std::string x = SoleOutput(block.ops[i], "Output");
    if (x.empty() || !IsIntermediate(*program, x)) return false;
    const int mul = SoleConsumer(block, x);
    if (mul < 0) return false;
    const Tensor* scale = ChannelOrScalarConstantOf(
        *program, *weights, mul, "elementwise_mul", x, channels, dtype);
    std::string out = SoleOutput(block.ops[mul], "Out");
    if (scale == nullptr || out.empty()) return false;
    int add = -1;
    const Tensor* shift = nullptr;
    if (IsIntermediate(*program, out)) {
      const int next = SoleConsumer(block, out);
      if (next >= 0) {
        shift = ChannelOrScalarConstantOf(
            *program, *weights, next, "elementwise_add", out, channels, dtype);
      }
      const std::string add_out =
          shift != nullptr ? SoleOutput(block.ops[next], "Out") : "";
      if (!add_out.empty() && CanMoveOutput(*program, add_out, i, next)) {
        add = next;
        out = add_out;
      } else {
        shift = nullptr;
      }
    }
    if (add < 0 && !CanMoveOutput(*program, out, i, mul)) return false;

    Tensor new_filter;
    Tensor new_bias;
    if (dtype == DataType::kFloat32) {
      Fold<float>(*conv.filter, conv.bias, *scale, shift, &new_filter,
                  &new_bias);
    } else {
      Fold<double>(*conv.filter, conv.bias, *scale, shift, &new_filter,
                   &new_bias);
    }
    *change = "folded " + OpLabel(block, mul);
    if (add >= 0) *change += " + " + OpLabel(block, add);
    *change += " into " + OpLabel(block, i) + ": ";
    std::vector<int> folded = {mul};
    if (add >= 0) folded.push_back(add);
    *change += ReplaceConvWeights(program, weights, i, "@affine_folded",
                                  std::move(new_filter), std::move(new_bias),
                                  out, folded);
    return true;
  }
};

}  // namespace
}  // namespace passes
}  // namespace framework
}  // namespace paddle_lite

REGISTER_PASS(fold_affine_into_conv,
              paddle_lite::framework::passes::FoldAffineIntoConvPass,
              320);
