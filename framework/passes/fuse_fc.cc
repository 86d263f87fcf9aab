// fuse_fc: a matrix product with constant 2-D weights, whose result is read
// only by an elementwise_add of a constant bias [N] over the last dim (and
// that, optionally, only by a relu) becomes one fc op (operators/fc.cc):
// * mul with y_num_col_dims 1 (any x_num_col_dims, which becomes
//   in_num_col_dims);
// * matmul without transposes and with alpha 1, or matmul_v2 without
//   transposes, whose X has a declared rank r >= 2: a 2-D Y is applied to
//   every row, so in_num_col_dims is r - 1 (ops.md 10.2, 10.3).
// The fc writes the last fused op's output.
#include "framework/pass.h"
#include "framework/passes/pass_utils.h"

namespace paddle_lite {
namespace framework {
namespace passes {
namespace {

// in_num_col_dims of an fc equal to the product at `op`; -1 if none is.
int InNumColDims(const ProgramDesc& program, const OpDesc& op) {
  if (op.type == "mul") {
    return GetAttr<int32_t>(op, "y_num_col_dims") == 1
               ? GetAttr<int32_t>(op, "x_num_col_dims")
               : -1;
  }
  if (op.type == "matmul") {
    if (GetAttr<bool>(op, "transpose_X") || GetAttr<bool>(op, "transpose_Y") ||
        GetAttr<float>(op, "alpha") != 1.0f ||
        (op.HasAttr("head_number") &&
         GetAttr<int32_t>(op, "head_number") != 1)) {
      return -1;
    }
  } else if (op.type == "matmul_v2") {
    if (GetAttr<bool>(op, "trans_x") || GetAttr<bool>(op, "trans_y")) return -1;
  } else {
    return -1;
  }
  const VarDesc* x = program.FindVarRecursive(0, SoleInput(op, "X"));
  const int rank = x ? static_cast<int>(x->dims.size()) : 0;
  return rank >= 2 ? rank - 1 : -1;
}

class FuseFcPass : public Pass {
 public:
  std::vector<std::string> CreatedOpTypes() const override { return {"fc"}; }
  std::vector<std::string> Apply(ProgramDesc* program,
                                 Scope* weights) const override {
    std::vector<std::string> changes;
    BlockDesc& block = program->blocks[0];
    for (int i = 0; i < static_cast<int>(block.ops.size()); ++i) {
      std::string change;
      if (TryFuse(program, *weights, i, &change)) changes.push_back(change);
    }
    return changes;
  }

 private:
  static bool TryFuse(ProgramDesc* program,
                      const Scope& weights,
                      int i,
                      std::string* change) {
    BlockDesc& block = program->blocks[0];
    const OpDesc& matmul = block.ops[i];
    const int in_num_col_dims = InNumColDims(*program, matmul);
    if (in_num_col_dims < 1) return false;
    const std::string x = SoleInput(matmul, "X");
    const std::string w_name = SoleInput(matmul, "Y");
    const Tensor* w = ConstantValue(*program, weights, w_name);
    if (x.empty() || w == nullptr || w->rank() != 2 ||
        (w->dtype() != DataType::kFloat32 &&
         w->dtype() != DataType::kFloat64)) {
      return false;
    }
    const std::string product = SoleOutput(matmul, "Out");
    if (product.empty() || !IsIntermediate(*program, product)) return false;
    const int add = SoleConsumer(block, product);
    if (add < 0 || block.ops[add].type != "elementwise_add" ||
        SoleInput(block.ops[add], "X") != product) {
      return false;
    }
    const std::string bias_name = SoleInput(block.ops[add], "Y");
    const Tensor* bias = ConstantValue(*program, weights, bias_name);
    if (bias == nullptr || bias->dtype() != w->dtype() ||
        bias->numel() != w->dims()[1]) {
      return false;
    }
    // The bias must run along the last dim of the product (ops.md 6.1).
    const int axis = GetAttr<int32_t>(block.ops[add], "axis");
    const bool along_last =
        (bias->rank() == 1 && (axis == -1 || axis == in_num_col_dims)) ||
        (bias->rank() == 2 && bias->dims()[0] == 1 && axis == -1);
    if (!along_last) return false;

    int last = add;
    std::string out = SoleOutput(block.ops[add], "Out");
    std::string activation;
    if (!out.empty() && IsIntermediate(*program, out)) {
      const int relu = SoleConsumer(block, out);
      if (relu >= 0 && block.ops[relu].type == "relu" &&
          SoleInput(block.ops[relu], "X") == out) {
        const std::string relu_out = SoleOutput(block.ops[relu], "Out");
        if (!relu_out.empty() && CanMoveOutput(*program, relu_out, i, relu)) {
          last = relu;
          out = relu_out;
          activation = "relu";
        }
      }
    }
    if (out.empty() || !CanMoveOutput(*program, out, i, last)) return false;

    *change = "fused " + OpLabel(block, i) + " + " + OpLabel(block, add);
    if (last != add) *change += " + " + OpLabel(block, last);
    *change += " -> fc";
    OpDesc fc;
    fc.type = "fc";
    fc.SetInput("Input", {x});
    fc.SetInput("W", {w_name});
    fc.SetInput("Bias", {bias_name});
    fc.SetOutput("Out", {out});
    fc.attrs["in_num_col_dims"] = static_cast<int32_t>(in_num_col_dims);
    fc.attrs["activation_type"] = activation;
    block.ops[i] = std::move(fc);
    std::vector<int> removed = {add};
    if (last != add) removed.push_back(last);
    RemoveOps(&block, removed);
    return true;
  }
};

}  // namespace
}  // namespace passes
}  // namespace framework
}  // namespace paddle_lite

REGISTER_PASS(fuse_fc, paddle_lite::framework::passes::FuseFcPass, 500);
