// fuse_conv_residual: a conv2d / depthwise_conv2d (or a fused_conv2d with
// no activation yet) whose output is read only by an elementwise_add of a
// same-shaped tensor R (a residual connection) becomes a fused_conv2d with
// ResidualData R that writes the add's Out: Output = conv + bias + R,
// then the activation a later pass may fuse. oneDNN adds R as a sum
// post-op, so the add costs no pass of its own.
//
// Shapes are known only at run time, so the declared dims of both operands
// must be the same rank-4 dims (unknown sizes, -1, in the same places);
// fused_conv2d checks at run time that R has the output's dims. R must be
// written before the convolution runs; when it is written between the
// convolution and the add, the convolution moves down to the add's place
// if nothing between rewrites its inputs.
#include "framework/pass.h"
#include "framework/passes/pass_utils.h"

namespace paddle_lite {
namespace framework {
namespace passes {
namespace {

bool SameDeclaredDims(const BlockDesc& block,
                      const std::string& a,
                      const std::string& b) {
  const VarDesc* va = block.FindVar(a);
  const VarDesc* vb = block.FindVar(b);
  return va != nullptr && vb != nullptr && va->dims.size() == 4 &&
         va->dims == vb->dims;
}

class FuseConvResidualPass : public Pass {
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
      const bool fused = conv.type == "fused_conv2d";
      if ((conv.type != "conv2d" && conv.type != "depthwise_conv2d" &&
           !fused) ||
          !SlotEmpty(conv.inputs, "ResidualData") ||
          (fused && !GetAttr<std::string>(conv, "fuse_activation").empty())) {
        continue;
      }
      const std::string x = SoleOutput(conv, "Output");
      if (x.empty() || !IsIntermediate(*program, x)) continue;
      const int add = SoleConsumer(block, x);
      if (add < 0 || block.ops[add].type != "elementwise_add") continue;
      const OpDesc& add_op = block.ops[add];
      const std::string lhs = SoleInput(add_op, "X");
      const std::string rhs = SoleInput(add_op, "Y");
      const std::string residual = lhs == x ? rhs : lhs;
      if (residual.empty() || residual == x || (lhs != x && rhs != x) ||
          !SameDeclaredDims(block, x, residual)) {
        continue;
      }
      if (UsedInSubBlock(*program, residual)) continue;
      bool ready = true;
      for (int writer : WritersOf(block, residual)) ready &= writer < i;
      const std::string out = SoleOutput(add_op, "Out");
      if (out.empty() || !CanMoveOutput(*program, out, i, add)) continue;
      // A residual written after the convolution (a feature pyramid's
      // upsampled map): the convolution moves down to just before the
      // add, when nothing between rewrites its inputs.
      if (!ready && !CanMoveDown(block, i, add)) continue;
      changes.push_back("fused " + OpLabel(block, i) + " + " +
                        OpLabel(block, add) + ": ResidualData '" + residual +
                        "'" + (ready ? "" : " (convolution moved down)"));
      OpDesc fused_op = block.ops[i];
      fused_op.type = "fused_conv2d";
      fused_op.SetInput("ResidualData", {residual});
      fused_op.SetOutput("Output", {out});
      block.ops[add] = std::move(fused_op);
      RemoveOps(&block, {i});
      --i;  // the op now at i is the next one
    }
    return changes;
  }

 private:
  // True if the op at `from` may run just before the op at `to` instead:
  // no op between writes what it reads (or runs a sub-block, which might).
  static bool CanMoveDown(const BlockDesc& block, int from, int to) {
    const OpDesc& op = block.ops[from];
    for (int j = from + 1; j < to; ++j) {
      for (auto& kv : block.ops[j].attrs) {
        if (TypeOf(kv.second) == AttrType::kBlock) return false;
      }
    }
    for (auto& kv : op.inputs) {
      for (auto& name : kv.second) {
        for (int writer : WritersOf(block, name)) {
          if (writer > from && writer < to) return false;
        }
      }
    }
    return true;
  }
};

}  // namespace
}  // namespace passes
}  // namespace framework
}  // namespace paddle_lite

REGISTER_PASS(fuse_conv_residual,
              paddle_lite::framework::passes::FuseConvResidualPass,
              350);
