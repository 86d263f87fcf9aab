// fuse_elementwise_activation: elementwise_add / elementwise_mul on float
// tensors whose output is read only by an activation (the ones
// fuse_conv_activation takes) becomes fused_elementwise_add / _mul
// (operators/fused_elementwise_op.h) writing the activation's Out, e.g.
// the residual "add + relu" of ResNet-like blocks. Runs after the conv and
// fc fusions, which take the bias additions first.
#include "framework/pass.h"
#include "framework/passes/pass_utils.h"

namespace paddle_lite {
namespace framework {
namespace passes {
namespace {

class FuseElementwiseActivationPass : public Pass {
 public:
  std::vector<std::string> CreatedOpTypes() const override {
    return {"fused_elementwise_add", "fused_elementwise_mul"};
  }
  std::vector<std::string> Apply(ProgramDesc* program,
                                 Scope* weights) const override {
    std::vector<std::string> changes;
    BlockDesc& block = program->blocks[0];
    for (int i = 0; i < static_cast<int>(block.ops.size()); ++i) {
      const OpDesc& op = block.ops[i];
      if (op.type != "elementwise_add" && op.type != "elementwise_mul") {
        continue;
      }
      // The fused kernels exist for float and double only.
      const VarDesc* x = program->FindVarRecursive(0, SoleInput(op, "X"));
      if (x == nullptr ||
          (x->dtype != DataType::kFloat32 && x->dtype != DataType::kFloat64)) {
        continue;
      }
      const std::string result = SoleOutput(op, "Out");
      if (result.empty() || !IsIntermediate(*program, result)) continue;
      const int act = SoleConsumer(block, result);
      AttributeMap fuse_attrs;
      if (act < 0 || SoleInput(block.ops[act], "X") != result ||
          !FusedActivationAttrs(block.ops[act], &fuse_attrs)) {
        continue;
      }
      const std::string out = SoleOutput(block.ops[act], "Out");
      if (out.empty() || !CanMoveOutput(*program, out, i, act)) continue;
      OpDesc& fused = block.ops[i];
      const std::string fused_type = "fused_" + fused.type;
      changes.push_back("fused " + OpLabel(block, i) + " + " +
                        OpLabel(block, act) + " -> " + fused_type);
      fused.type = fused_type;
      for (auto& kv : fuse_attrs) fused.attrs[kv.first] = kv.second;
      fused.SetOutput("Out", {out});
      RemoveOps(&block, {act});
    }
    return changes;
  }
};

}  // namespace
}  // namespace passes
}  // namespace framework
}  // namespace paddle_lite

REGISTER_PASS(fuse_elementwise_activation,
              paddle_lite::framework::passes::FuseElementwiseActivationPass,
              600);
