// constant_folding: an op whose inputs are all constants (persistable
// weights no op writes) computes the same value on every run, so it runs
// once here, on the CPU with the reference kernels, in a child scope of the
// weights; its outputs become persistable variables of that scope (same
// names, declared persistable with their computed dtype and dims) and the
// op is deleted.
//
// Not folded: feed, fetch, control flow and random ops; ops without inputs
// (fill_constant: cheap, and folding would keep its memory alive); ops
// with an output that is fetched, persistable, written by another op or
// named in a sub-block; ops whose run fails here (the error then surfaces
// where it belongs, when the program runs).
//
// Runs early (after remove_noops), so the fusions see weights computed
// from weights as the constants they are: a conv bias reshaped to
// [1, C, 1, 1] by a reshape2 of a parameter becomes the conv's Bias.
#include <algorithm>
#include <set>
#include <sstream>

#include "framework/executor.h"
#include "framework/pass.h"
#include "framework/passes/pass_utils.h"

namespace paddle_lite {
namespace framework {
namespace passes {
namespace {

// Bytes of the largest tensor constant folding computes.
constexpr size_t kMaxFoldedBytes = size_t{64} << 20;

bool NeverFolded(const OpDesc& op) {
  static const std::set<std::string> kTypes = {"feed",
                                               "fetch",
                                               "while",
                                               "conditional_block",
                                               "recurrent",
                                               "select_input",
                                               "select_output",
                                               "uniform_random",
                                               "gaussian_random",
                                               "randint",
                                               "randperm",
                                               "sampling_id"};
  if (kTypes.count(op.type)) return true;
  for (auto& kv : op.attrs) {
    const AttrType type = TypeOf(kv.second);
    if (type == AttrType::kBlock || type == AttrType::kBlocks) return true;
  }
  return false;
}

class ConstantFoldingPass : public Pass {
 public:
  std::vector<std::string> Apply(ProgramDesc* program,
                                 Scope* weights) const override {
    std::vector<std::string> changes;
    std::set<std::string> folded;
    BlockDesc& block = program->blocks[0];
    for (int i = 0; i < static_cast<int>(block.ops.size()); ++i) {
      std::string change;
      const OpDesc op = block.ops[i];
      if (!TryFold(program, weights, i, &folded, &change)) continue;
      changes.push_back(change);
      --i;
      // A value folded earlier that only this op read is not needed any
      // more (a chain of folds keeps only its end).
      for (auto& kv : op.inputs) {
        for (auto& name : kv.second) {
          if (folded.count(name) && ConsumersOf(block, name).empty() &&
              !UsedInSubBlock(*program, name)) {
            folded.erase(name);
            block.vars.erase(
                std::find_if(block.vars.begin(), block.vars.end(),
                             [&](const VarDesc& v) { return v.name == name; }));
            weights->FindVar(name)->Clear();
          }
        }
      }
    }
    return changes;
  }

 private:
  static bool TryFold(ProgramDesc* program,
                      Scope* weights,
                      int i,
                      std::set<std::string>* folded,
                      std::string* change) {
    BlockDesc& block = program->blocks[0];
    const OpDesc& op = block.ops[i];
    if (NeverFolded(op)) return false;
    // One block with the op, its inputs declared persistable (found in
    // the weights) and its outputs as locals of the run scope.
    ProgramDesc one;
    one.version = program->version;
    one.op_version_map = program->op_version_map;
    one.blocks.resize(1);
    bool has_input = false;
    for (auto& kv : op.inputs) {
      for (auto& name : kv.second) {
        if (ConstantValue(*program, *weights, name) == nullptr) return false;
        if (one.blocks[0].FindVar(name) == nullptr) {
          one.blocks[0].vars.push_back(*block.FindVar(name));
        }
        has_input = true;
      }
    }
    if (!has_input) return false;
    std::vector<std::string> outputs;
    for (auto& kv : op.outputs) {
      for (auto& name : kv.second) {
        const VarDesc* var = block.FindVar(name);
        if ((var != nullptr && !var->is_tensor()) || IsPinned(block, name) ||
            WritersOf(block, name) != std::vector<int>{i} ||
            UsedInSubBlock(*program, name)) {
          return false;
        }
        if (one.blocks[0].FindVar(name) != nullptr) continue;
        VarDesc local = var ? *var : VarDesc();
        local.name = name;
        one.blocks[0].vars.push_back(local);
        outputs.push_back(name);
      }
    }
    one.blocks[0].ops.push_back(op);

    Scope& scope = weights->NewScope();
    std::vector<std::pair<std::string, Tensor>> values;
    bool ok = true;
    try {
      platform::DeviceContextPool contexts(
          platform::DeviceContextOptions::WithThreads(1));
      ExecutorOptions options;
      options.plan_replay = false;
      // A constant this large is not worth folding (and a hostile shape
      // must not be computed at load): past it the op stays to run.
      options.max_tensor_bytes = kMaxFoldedBytes;
      options.max_run_bytes = 4 * kMaxFoldedBytes;
      Executor executor(one, KernelPreference{}, &contexts, options);
      executor.Run(0, &scope);
      for (auto& name : outputs) {
        const Variable* v = scope.FindLocalVar(name);
        if (v != nullptr && v->IsType<Tensor>() &&
            v->Get<Tensor>().IsInitialized()) {
          Tensor value = v->Get<Tensor>();
          ConvertToPlainLayout(&value);  // weights are read by any kernel
          values.emplace_back(name, value);
        } else if (!ConsumersOf(block, name).empty()) {
          ok = false;  // read later but left unset (a training output)
        }
      }
    } catch (const Exception&) {
      ok = false;
    }
    weights->DeleteScope(&scope);
    if (!ok) return false;

    std::ostringstream text;
    text << "folded " << OpLabel(block, i) << " into";
    for (auto& kv : values) {
      const Tensor& t = kv.second;
      text << " '" << kv.first << "' " << t.dtype() << " " << t.dims();
      VarDesc* var = block.FindVar(kv.first);
      if (var == nullptr) {
        block.vars.emplace_back();
        var = &block.vars.back();
        var->name = kv.first;
      }
      var->persistable = true;
      var->dtype = t.dtype();
      var->dims = t.dims();
      *weights->Var(kv.first)->GetMutable<Tensor>() = kv.second;
      folded->insert(kv.first);
    }
    *change = text.str();
    RemoveOps(&block, {i});
    return true;
  }
};

}  // namespace
}  // namespace passes
}  // namespace framework
}  // namespace paddle_lite

REGISTER_PASS(constant_folding,
              paddle_lite::framework::passes::ConstantFoldingPass,
              150);
