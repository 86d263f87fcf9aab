// fold_batch_norm_into_conv: an inference batch_norm after a convolution
// (conv2d, depthwise_conv2d or conv2d_transpose)
// is a per-channel affine map, so it folds into the convolution's weights
// (ops.md 2.2, 4.1). With s = Scale / sqrt(Variance + epsilon):
//   W'[m, ...] = W[m, ...] * s[m]
//   b'[m]      = Bias[m] + (b[m] - Mean[m]) * s[m]
// where b is the convolution's own bias: its Bias input, or a per-channel
// elementwise_add between it and the batch_norm (0 when neither exists).
// For conv2d_transpose the filter is [Cin, Cout / groups, KH, KW]: output
// channel m = g * (Cout / groups) + j scales W[c, j] for the input
// channels c of group g.
// W' and b' are new persistable variables ("<filter>@bn_folded",
// "<filter>@bn_folded_bias"): the originals may be shared by other ops.
// The convolution then writes the batch_norm's Y, so fetched names stay.
#include <algorithm>
#include <cmath>
#include <vector>

#include "framework/pass.h"
#include "framework/passes/pass_utils.h"

namespace paddle_lite {
namespace framework {
namespace passes {
namespace {

struct BatchNormParams {
  const Tensor* scale;
  const Tensor* bias;
  const Tensor* mean;
  const Tensor* variance;
  double epsilon;
};

// W' and b' as above, in the weights' own type (float or double), for a
// filter [channels, ...] (convolution) or, with `transposed`,
// [Cin, channels / groups, ...].
template <typename T>
void Fold(const Tensor& filter,
          const Tensor* conv_bias,
          const BatchNormParams& bn,
          bool transposed,
          int64_t groups,
          Tensor* new_filter,
          Tensor* new_bias) {
  const auto& d = filter.dims();
  const int64_t channels = transposed ? d[1] * groups : d[0];
  const int64_t taps = d[2] * d[3];
  const T* w = filter.data<T>();
  T* nw = new_filter->mutable_data<T>(filter.dims(), platform::CPUPlace{});
  T* nb = new_bias->mutable_data<T>(DDim{channels}, platform::CPUPlace{});
  std::vector<double> scale(channels);
  for (int64_t m = 0; m < channels; ++m) {
    scale[m] =
        static_cast<double>(bn.scale->data<T>()[m]) /
        std::sqrt(static_cast<double>(bn.variance->data<T>()[m]) + bn.epsilon);
    const double b = conv_bias ? conv_bias->data<T>()[m] : 0.0;
    nb[m] = static_cast<T>(bn.bias->data<T>()[m] +
                           (b - bn.mean->data<T>()[m]) * scale[m]);
  }
  // Output channel of each (dim 0, dim 1) filter slice.
  const int64_t in_per_group = transposed ? d[0] / groups : 0;
  for (int64_t a = 0; a < d[0]; ++a) {
    for (int64_t b = 0; b < d[1]; ++b) {
      const int64_t m = transposed ? (a / in_per_group) * d[1] + b : a;
      const int64_t base = (a * d[1] + b) * taps;
      for (int64_t k = 0; k < taps; ++k) {
        nw[base + k] = static_cast<T>(w[base + k] * scale[m]);
      }
    }
  }
}

// True if every output of the batch_norm at `index` other than Y is unread:
// the training-only outputs, or the running statistics it aliases.
bool OnlyYIsUsed(const ProgramDesc& program, int index) {
  const BlockDesc& block = program.blocks[0];
  for (auto& kv : block.ops[index].outputs) {
    if (kv.first == "Y") continue;
    for (auto& name : kv.second) {
      for (int reader : ConsumersOf(block, name)) {
        if (reader != index) return false;
      }
      if (UsedInSubBlock(program, name)) {
        return false;
      }
    }
  }
  return true;
}

class FoldBatchNormPass : public Pass {
 public:
  std::vector<std::string> Apply(ProgramDesc* program,
                                 Scope* weights) const override {
    std::vector<std::string> changes;
    BlockDesc& block = program->blocks[0];
    for (int i = 0; i < static_cast<int>(block.ops.size()); ++i) {
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
    if (!FoldableConvAt(*program, *weights, i, /*transposed_too=*/true,
                        &conv)) {
      return false;
    }
    const DataType dtype = conv.dtype;
    const int64_t channels = conv.channels;
    auto per_channel = [&](const Tensor* t) {
      return t != nullptr && t->dtype() == dtype && t->numel() == channels;
    };
    const Tensor* conv_bias = conv.bias;

    // conv -> [elementwise_add of a channel bias] -> batch_norm.
    std::string x = SoleOutput(block.ops[i], "Output");
    if (x.empty() || !IsIntermediate(*program, x)) return false;
    int next = SoleConsumer(block, x);
    int add = -1;
    if (next >= 0 && conv_bias == nullptr) {
      const Tensor* add_bias =
          ChannelBiasOfAdd(*program, *weights, next, x, channels, dtype);
      const std::string add_out = SoleOutput(block.ops[next], "Out");
      if (add_bias != nullptr && !add_out.empty() &&
          IsIntermediate(*program, add_out)) {
        conv_bias = add_bias;
        add = next;
        x = add_out;
        next = SoleConsumer(block, x);
      }
    }
    if (next < 0) return false;
    const OpDesc& bn = block.ops[next];
    if (bn.type != "batch_norm" || SoleInput(bn, "X") != x) return false;
    const bool running_stats = (GetAttr<bool>(bn, "is_test") &&
                                !GetAttr<bool>(bn, "trainable_statistics")) ||
                               GetAttr<bool>(bn, "use_global_stats");
    const std::string layout = GetAttr<std::string>(bn, "data_layout");
    if (!running_stats || (layout != "NCHW" && layout != "AnyLayout")) {
      return false;
    }
    BatchNormParams params;
    params.epsilon = GetAttr<float>(bn, "epsilon");
    // batch_norm itself may write Mean and Variance (MeanOut aliases them).
    auto param = [&](const char* slot) {
      return ConstantValue(*program, *weights, SoleInput(bn, slot), next);
    };
    params.scale = param("Scale");
    params.bias = param("Bias");
    params.mean = param("Mean");
    params.variance = param("Variance");
    for (const Tensor* t :
         {params.scale, params.bias, params.mean, params.variance}) {
      if (!per_channel(t)) return false;
    }
    const std::string y = SoleOutput(bn, "Y");
    if (y.empty() || !OnlyYIsUsed(*program, next) ||
        !CanMoveOutput(*program, y, i, next)) {
      return false;
    }

    Tensor new_filter;
    Tensor new_bias;
    if (dtype == DataType::kFloat32) {
      Fold<float>(*conv.filter, conv_bias, params, conv.transposed, conv.groups,
                  &new_filter, &new_bias);
    } else {
      Fold<double>(*conv.filter, conv_bias, params, conv.transposed,
                   conv.groups, &new_filter, &new_bias);
    }
    *change = "folded " + OpLabel(block, next) + " into " + OpLabel(block, i);
    if (add >= 0) *change += " (with the bias of " + OpLabel(block, add) + ")";
    std::vector<int> folded = {next};
    if (add >= 0) folded.push_back(add);
    *change += ": " + ReplaceConvWeights(program, weights, i, "@bn_folded",
                                         std::move(new_filter),
                                         std::move(new_bias), y, folded);
    return true;
  }
};

}  // namespace
}  // namespace passes
}  // namespace framework
}  // namespace paddle_lite

REGISTER_PASS(fold_batch_norm_into_conv,
              paddle_lite::framework::passes::FoldBatchNormPass,
              200);
