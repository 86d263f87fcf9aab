// fuse_conv_activation: conv2d / depthwise_conv2d (or a fused_conv2d
// with a residual but no activation) whose output is read only by an
// activation (relu, relu6, leaky_relu, hard_swish with Paddle's
// fixed attributes, sigmoid, swish, hard_sigmoid) becomes one fused_conv2d
// (operators/fused_conv2d.cc) that writes the activation's Out. A
// conv2d_transpose takes the activation in its own fuse_activation
// attributes (Paddle's), keeping its type.
#include "framework/pass.h"
#include "framework/passes/pass_utils.h"

namespace paddle_lite {
namespace framework {
namespace passes {
namespace {

class FuseConvActivationPass : public Pass {
 public:
  std::vector<std::string> CreatedOpTypes() const override {
    return {"fused_conv2d"};
  }
  std::vector<std::string> Apply(ProgramDesc* program,
                                 Scope* weights) const override {
    std::vector<std::string> changes;
    BlockDesc& block = program->blocks[0];
    for (int i = 0; i < static_cast<int>(block.ops.size()); ++i) {
      const OpDesc& conv = block.ops[i];
      const bool transposed =
          conv.type == "conv2d_transpose" &&
          GetAttr<std::string>(conv, "fuse_activation").empty();
      // A fused_conv2d with a residual and no activation yet (from
      // fuse_conv_residual) takes one too: act(conv + residual).
      const bool residual =
          conv.type == "fused_conv2d" &&
          !SlotEmpty(conv.inputs, "ResidualData") &&
          GetAttr<std::string>(conv, "fuse_activation").empty();
      if ((conv.type != "conv2d" && conv.type != "depthwise_conv2d" &&
           !residual && !transposed) ||
          (!residual && !SlotEmpty(conv.inputs, "ResidualData"))) {
        continue;
      }
      const std::string x = SoleOutput(conv, "Output");
      if (x.empty() || !IsIntermediate(*program, x)) continue;
      const int act = SoleConsumer(block, x);
      AttributeMap fuse_attrs;
      if (act < 0 || SoleInput(block.ops[act], "X") != x ||
          !FusedActivationAttrs(block.ops[act], &fuse_attrs)) {
        continue;
      }
      const std::string out = SoleOutput(block.ops[act], "Out");
      if (out.empty() || !CanMoveOutput(*program, out, i, act)) continue;
      const std::string fused_type = transposed ? conv.type : "fused_conv2d";
      changes.push_back("fused " + OpLabel(block, i) + " + " +
                        OpLabel(block, act) + " -> " + fused_type);
      OpDesc& fused = block.ops[i];
      fused.type = fused_type;
      for (auto& kv : fuse_attrs) fused.attrs[kv.first] = kv.second;
      fused.SetOutput("Output", {out});
      RemoveOps(&block, {act});
    }
    return changes;
  }
};

}  // namespace
}  // namespace passes
}  // namespace framework
}  // namespace paddle_lite

REGISTER_PASS(fuse_conv_activation,
              paddle_lite::framework::passes::FuseConvActivationPass,
              400);
