// fuse_conv_bias: conv2d / depthwise_conv2d / conv2d_transpose without a
// Bias whose output is read only by an elementwise_add of one constant
// value per output channel ([M] with axis 1, or [1, M, 1, 1]) becomes the
// convolution with that constant as its Bias input (ops.md 2.2: a bound
// Bias is added per output channel). The convolution then writes the add's
// Out.
#include <algorithm>

#include "framework/pass.h"
#include "framework/passes/pass_utils.h"

namespace paddle_lite {
namespace framework {
namespace passes {
namespace {

class FuseConvBiasPass : public Pass {
 public:
  std::vector<std::string> Apply(ProgramDesc* program,
                                 Scope* weights) const override {
    std::vector<std::string> changes;
    BlockDesc& block = program->blocks[0];
    for (int i = 0; i < static_cast<int>(block.ops.size()); ++i) {
      const OpDesc& conv = block.ops[i];
      const bool transposed = conv.type == "conv2d_transpose";
      if ((conv.type != "conv2d" && conv.type != "depthwise_conv2d" &&
           !transposed) ||
          GetAttr<std::string>(conv, "data_format") == "NHWC" ||
          !SlotEmpty(conv.inputs, "Bias") ||
          !SlotEmpty(conv.inputs, "ResidualData")) {
        continue;
      }
      const Tensor* filter =
          ConstantValue(*program, *weights, SoleInput(conv, "Filter"));
      const std::string x = SoleOutput(conv, "Output");
      if (filter == nullptr || filter->rank() != 4 || x.empty() ||
          !IsIntermediate(*program, x)) {
        continue;
      }
      // A transposed filter is [Cin, Cout / groups, KH, KW].
      const int64_t channels =
          transposed ? filter->dims()[1] *
                           std::max(1, GetAttr<int32_t>(conv, "groups"))
                     : filter->dims()[0];
      const int add = SoleConsumer(block, x);
      if (add < 0 || ChannelBiasOfAdd(*program, *weights, add, x, channels,
                                      filter->dtype()) == nullptr) {
        continue;
      }
      const std::string out = SoleOutput(block.ops[add], "Out");
      if (out.empty() || !CanMoveOutput(*program, out, i, add)) continue;
      const std::string bias = SoleInput(block.ops[add], "Y");
      changes.push_back("fused " + OpLabel(block, i) + " + " +
                        OpLabel(block, add) + ": Bias '" + bias + "'");
      OpDesc& fused = block.ops[i];
      fused.SetInput("Bias", {bias});
      fused.SetOutput("Output", {out});
      RemoveOps(&block, {add});
    }
    return changes;
  }
};

}  // namespace
}  // namespace passes
}  // namespace framework
}  // namespace paddle_lite

REGISTER_PASS(fuse_conv_bias,
              paddle_lite::framework::passes::FuseConvBiasPass,
              300);
