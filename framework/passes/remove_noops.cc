// remove_noops: deletes ops that copy their input at inference (dropout
// "upscale_in_train", scale by 1 plus 0, assign of a tensor) and turns
// dropout "downgrade_in_infer" into the scale it is (ops.md 7.1, 7.3, 7.5).
//
// Deleting X -> Out makes Out's readers read X. When Out is fetched, its
// name is public, so instead the op that writes X writes Out (the saver's
// `save_infer_model/scale_0` before each fetch). Nothing is deleted when a
// sub-block names X or Out, or when X is written again later (readers of
// Out would see the new value).
#include "framework/pass.h"
#include "framework/passes/pass_utils.h"

namespace paddle_lite {
namespace framework {
namespace passes {
namespace {

// Deletes the copy op at `i` (X -> Out); false if that is not safe.
bool RemoveCopy(ProgramDesc* program, int i, std::string* change) {
  BlockDesc& block = program->blocks[0];
  const std::string label = OpLabel(block, i);
  const std::string x = SoleInput(block.ops[i], "X");
  const std::string out = SoleOutput(block.ops[i], "Out");
  if (x.empty() || out.empty()) return false;
  if (x == out) {  // a copy onto itself
    RemoveOps(&block, {i});
    *change = "removed " + label + " (in place on '" + x + "')";
    return true;
  }
  if (UsedInSubBlock(*program, x) || UsedInSubBlock(*program, out)) {
    return false;
  }
  for (int writer : WritersOf(block, x)) {
    if (writer > i) return false;
  }
  if (WritersOf(block, out) != std::vector<int>{i}) return false;
  const VarDesc* out_var = block.FindVar(out);
  if (out_var != nullptr && (out_var->persistable || !out_var->is_tensor())) {
    return false;
  }
  if (!IsPinned(block, out)) {
    RenameInput(&block, out, x, i);
    RemoveOps(&block, {i});
    *change =
        "removed " + label + "; readers of '" + out + "' read '" + x + "'";
    return true;
  }
  // Out is fetched: X's producer writes Out instead, if X is only this
  // op's input and the producer is no feed (whose output is public too).
  if (!IsIntermediate(*program, x) || SoleConsumer(block, x) != i) {
    return false;
  }
  const int producer = WritersOf(block, x).front();
  if (producer > i || block.ops[producer].type == "feed" ||
      TouchedBetween(block, out, producer, i)) {
    return false;
  }
  const std::string producer_label = OpLabel(block, producer);
  RenameOutputOf(&block.ops[producer], x, out);
  RemoveOps(&block, {i});
  *change =
      "removed " + label + "; " + producer_label + " writes '" + out + "'";
  return true;
}

class RemoveNoopsPass : public Pass {
 public:
  std::vector<std::string> Apply(ProgramDesc* program,
                                 Scope* weights) const override {
    std::vector<std::string> changes;
    BlockDesc& block = program->blocks[0];
    for (int i = 0; i < static_cast<int>(block.ops.size()); ++i) {
      OpDesc& op = block.ops[i];
      std::string change;
      if (op.type == "dropout") {
        // A consumed Mask (never at inference) would lose its producer.
        const auto* mask = FindSlot(op.outputs, "Mask");
        bool mask_used = false;
        for (const auto& name : mask ? *mask : std::vector<std::string>{}) {
          mask_used = mask_used || !ConsumersOf(block, name).empty();
        }
        if (mask_used) continue;
        const float p = GetAttr<float>(op, "dropout_prob");
        const bool identity =
            GetAttr<std::string>(op, "dropout_implementation") ==
                "upscale_in_train" ||
            1.0f - p == 1.0f;
        if (identity) {
          if (RemoveCopy(program, i, &change)) {
            changes.push_back(change);
            --i;
          }
          continue;
        }
        // Same factor as the dropout kernel: 1 - p in float.
        OpDesc scale;
        scale.type = "scale";
        scale.SetInput("X", op.Input("X"));
        scale.SetOutput("Out", op.Output("Out"));
        scale.attrs["scale"] = 1.0f - p;
        scale.attrs["bias"] = 0.0f;
        scale.attrs["bias_after_scale"] = true;
        changes.push_back(OpLabel(block, i) + " (downgrade_in_infer, p " +
                          NumberText(p) + ") -> scale " + NumberText(1.0f - p));
        op = std::move(scale);
        RemoveOps(&block, {});  // drops the Mask declaration
      } else if (op.type == "scale") {
        if (!SlotEmpty(op.inputs, "ScaleTensor") ||
            GetAttr<float>(op, "scale") != 1.0f ||
            GetAttr<float>(op, "bias") != 0.0f) {
          continue;
        }
        if (RemoveCopy(program, i, &change)) {
          changes.push_back(change);
          --i;
        }
      } else if (op.type == "assign") {
        // Tensor arrays are copied as lists; only tensors are plain copies.
        const VarDesc* x = program->FindVarRecursive(0, SoleInput(op, "X"));
        if (x != nullptr && !x->is_tensor()) continue;
        if (RemoveCopy(program, i, &change)) {
          changes.push_back(change);
          --i;
        }
      }
    }
    return changes;
  }
};

}  // namespace
}  // namespace passes
}  // namespace framework
}  // namespace paddle_lite

REGISTER_PASS(remove_noops,
              paddle_lite::framework::passes::RemoveNoopsPass,
              100);
