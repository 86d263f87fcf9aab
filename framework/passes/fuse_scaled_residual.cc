// fuse_scaled_residual: x + x * s, the residual around a
// squeeze-and-excitation gate (PP-OCRv3's RSE layers add a feature map to
// itself times its SE gate), becomes x * (s + 1): a scale op adds 1 to the
// gate, which is small ([N, C, 1, 1]), and one multiply replaces a
// multiply and an add over the whole map. The result differs from the
// original by float rounding only (s + 1 is rounded once).
//
// Taken only when x, s and x * s have the same rank (broadcasting then
// aligns every dim the same way in both forms, whatever `axis` says) and
// are float32.
#include "framework/pass.h"
#include "framework/passes/pass_utils.h"

namespace paddle_lite {
namespace framework {
namespace passes {
namespace {

class FuseScaledResidualPass : public Pass {
 public:
  std::vector<std::string> CreatedOpTypes() const override { return {"scale"}; }
  std::vector<std::string> Apply(ProgramDesc* program,
                                 Scope* weights) const override {
    std::vector<std::string> changes;
    BlockDesc& block = program->blocks[0];
    for (int i = 0; i < static_cast<int>(block.ops.size()); ++i) {
      if (block.ops[i].type != "elementwise_mul") continue;
      const std::string mul_x = SoleInput(block.ops[i], "X");
      const std::string mul_y = SoleInput(block.ops[i], "Y");
      const std::string product = SoleOutput(block.ops[i], "Out");
      if (mul_x.empty() || mul_y.empty() || mul_x == mul_y || product.empty() ||
          !IsIntermediate(*program, product)) {
        continue;
      }
      const int add = SoleConsumer(block, product);
      if (add < 0 || block.ops[add].type != "elementwise_add") continue;
      const std::string add_x = SoleInput(block.ops[add], "X");
      const std::string add_y = SoleInput(block.ops[add], "Y");
      const std::string other = add_x == product ? add_y : add_x;
      if ((add_x != product && add_y != product) ||
          (other != mul_x && other != mul_y)) {
        continue;
      }
      const std::string& x = other;
      const std::string& gate = other == mul_x ? mul_y : mul_x;
      if (!SameRankFloat32(*program, {x, gate, product})) continue;
      // x must hold the same value at the add as at the multiply.
      bool rewritten = false;
      for (int w : WritersOf(block, x)) rewritten |= w > i && w < add;
      if (rewritten) continue;
      const std::string out = SoleOutput(block.ops[add], "Out");
      if (out.empty() || !CanMoveOutput(*program, out, i, add)) continue;

      const VarDesc* gate_var = program->FindVarRecursive(0, gate);
      VarDesc plus_one = *gate_var;
      plus_one.name = UniqueVarName(*program, *weights, gate + "@plus_1");
      plus_one.persistable = false;
      plus_one.is_parameter = false;
      block.vars.push_back(plus_one);
      OpDesc scale;
      scale.type = "scale";
      scale.SetInput("X", {gate});
      scale.SetOutput("Out", {plus_one.name});
      scale.attrs["scale"] = 1.0f;
      scale.attrs["bias"] = 1.0f;
      scale.attrs["bias_after_scale"] = true;

      changes.push_back("fused " + OpLabel(block, i) + " + " +
                        OpLabel(block, add) + ": " + x + " * (" + gate +
                        " + 1) -> " + out);
      OpDesc& mul = block.ops[i];
      mul.SetInput(gate == mul_x ? "X" : "Y", {plus_one.name});
      mul.SetOutput("Out", {out});
      RemoveOps(&block, {add});
      block.ops.insert(block.ops.begin() + i, std::move(scale));
      ++i;  // past the multiply
    }
    return changes;
  }

 private:
  static bool SameRankFloat32(const ProgramDesc& program,
                              const std::vector<std::string>& names) {
    size_t rank = 0;
    for (const std::string& name : names) {
      const VarDesc* var = program.FindVarRecursive(0, name);
      if (var == nullptr || !var->is_tensor() ||
          var->dtype != DataType::kFloat32 || var->dims.empty()) {
        return false;
      }
      if (rank == 0) rank = var->dims.size();
      if (var->dims.size() != rank) return false;
    }
    return true;
  }
};

}  // namespace
}  // namespace passes
}  // namespace framework
}  // namespace paddle_lite

REGISTER_PASS(fuse_scaled_residual,
              paddle_lite::framework::passes::FuseScaledResidualPass,
              450);
