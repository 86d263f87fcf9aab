#include "framework/executor.h"

#include <glog/logging.h>

#include <sstream>

#include "framework/op_registry.h"

namespace paddle_lite {
namespace framework {

struct Executor::BlockState {
  PreparedBlock block;
  bool strict_checked = false;
  // Resolved variables per op, for the scope they were resolved in. The
  // main block runs in one scope per predictor, so this is built once.
  const Scope* resolved_scope = nullptr;
  std::vector<RuntimeContext> contexts;
};

Executor::Executor(const ProgramDesc& program,
                   KernelPreference preference,
                   platform::DeviceContextPool* contexts)
    : program_(program),
      preference_(std::move(preference)),
      contexts_(contexts) {}

Executor::~Executor() = default;

namespace {

std::string OpLocation(const OperatorBase& op, int index, int block_idx) {
  std::ostringstream os;
  os << "op '" << op.Type() << "' (#" << index << " in block " << block_idx;
  for (auto& kv : op.Outputs()) {
    if (!kv.second.empty()) {
      os << ", output " << kv.first << "='" << kv.second[0] << "'";
      break;
    }
  }
  os << "): ";
  return os.str();
}

}  // namespace

Executor::BlockState& Executor::State(int block_idx, bool strict) {
  std::lock_guard<std::mutex> lock(mu_);
  PADDLE_ENFORCE(block_idx >= 0 &&
                     block_idx < static_cast<int>(program_.blocks.size()),
                 errors::OutOfRange("Block ", block_idx,
                                    " does not exist; the program has ",
                                    program_.blocks.size(), " blocks."));
  auto& slot = blocks_[block_idx];
  if (!slot) {
    auto state = std::make_unique<BlockState>();
    state->block.block_idx = block_idx;
    const BlockDesc& desc = program_.blocks[block_idx];
    for (size_t i = 0; i < desc.ops.size(); ++i) {
      PreparedOp prepared;
      prepared.index = static_cast<int>(i);
      prepared.type = desc.ops[i].type;
      if (OpInfoMap::Instance().Find(prepared.type) == nullptr) {
        prepared.problem = "op type '" + prepared.type +
                           "' is not registered (no definition built in or "
                           "loaded from a plugin)";
        state->block.ops.push_back(std::move(prepared));
        continue;
      }
      try {
        prepared.op = CreateOp(desc.ops[i]);
      } catch (const Exception& e) {
        platform::RethrowWithContext(
            e, "op '" + desc.ops[i].type + "' (#" + std::to_string(i) +
                   " in block " + std::to_string(block_idx) + "): ");
      }
      if (prepared.op->IsKernelOp()) {
        auto& kop = static_cast<const OperatorWithKernel&>(*prepared.op);
        KernelTypeContext type_ctx(kop, program_, block_idx);
        prepared.choice = ChooseKernel(kop, type_ctx, preference_);
        VLOG(3) << OpLocation(kop, prepared.index, block_idx) << "expected "
                << prepared.choice.expected.ToString() << ", chose "
                << (prepared.choice.kernel
                        ? prepared.choice.chosen.ToString()
                        : std::string("nothing"))
                << " (" << prepared.choice.reason << ")";
        if (prepared.choice.kernel == nullptr) {
          prepared.problem = prepared.choice.reason;
        }
      }
      state->block.ops.push_back(std::move(prepared));
    }
    slot = std::move(state);
  }
  if (strict && !slot->strict_checked) {
    std::ostringstream missing;
    int count = 0;
    for (auto& p : slot->block.ops) {
      if (p.problem.empty()) continue;
      ++count;
      missing << "\n  #" << p.index << " " << p.type;
      if (p.op) missing << " (" << p.choice.expected.data_type << ")";
      missing << ": " << p.problem;
    }
    PADDLE_ENFORCE(count == 0,
                   errors::Unimplemented(count, " op(s) of block ", block_idx,
                                         " have no kernel for place ",
                                         preference_.place,
                                         ":", missing.str()));
    slot->strict_checked = true;
  }
  return *slot;
}

const PreparedBlock& Executor::Prepare(int block_idx) {
  return State(block_idx, /*strict=*/true).block;
}

const PreparedBlock& Executor::PrepareForInspection(int block_idx) {
  return State(block_idx, /*strict=*/false).block;
}

namespace {

void CreateBlockVariables(const BlockDesc& block, Scope* scope) {
  for (auto& var : block.vars) {
    if (var.persistable && scope->FindVar(var.name) != nullptr) continue;
    Variable* v = scope->Var(var.name);
    if (v->IsInitialized()) continue;
    if (var.kind == static_cast<int>(VarKind::kFeedMinibatch) ||
        var.kind == static_cast<int>(VarKind::kFetchList) ||
        var.kind == static_cast<int>(VarKind::kLoDTensorArray)) {
      v->GetMutable<TensorList>();
    } else if (var.is_tensor()) {
      v->GetMutable<Tensor>();
    }
  }
}

RuntimeContext ResolveVariables(const OperatorBase& op, Scope* scope) {
  RuntimeContext ctx;
  auto resolve = [scope](const VarNameMap& names, auto* out) {
    for (auto& kv : names) {
      std::vector<Variable*> vars;
      for (auto& name : kv.second) {
        Variable* v = scope->FindVar(name);
        // Programs may name variables they never declare (older savers
        // dropped some declarations); they live in the run scope.
        vars.push_back(v ? v : scope->Var(name));
      }
      out->emplace_back(kv.first, std::move(vars));
    }
  };
  resolve(op.Inputs(), &ctx.inputs);
  resolve(op.Outputs(), &ctx.outputs);
  return ctx;
}

}  // namespace

void Executor::Run(int block_idx, Scope* scope) {
  BlockState& state = State(block_idx, /*strict=*/true);
  const BlockDesc& desc = program_.blocks[block_idx];
  if (state.resolved_scope != scope) {
    CreateBlockVariables(desc, scope);
    std::vector<RuntimeContext> contexts;
    for (auto& p : state.block.ops) {
      contexts.push_back(ResolveVariables(*p.op, scope));
    }
    // Sub-blocks run in fresh step scopes each time: resolve, don't cache.
    if (block_idx != 0) {
      for (size_t i = 0; i < state.block.ops.size(); ++i) {
        RunOp(state.block.ops[i], contexts[i], scope, block_idx);
      }
      return;
    }
    state.contexts = std::move(contexts);
    state.resolved_scope = scope;
  }
  for (size_t i = 0; i < state.block.ops.size(); ++i) {
    RunOp(state.block.ops[i], state.contexts[i], scope, block_idx);
  }
}

namespace {

// Copies every input tensor that is not on the kernel's place into a
// temporary variable there, and returns a context that reads the copies.
RuntimeContext TransferInputs(const RuntimeContext& ctx,
                              const platform::Place& place,
                              std::vector<std::unique_ptr<Variable>>* temps) {
  RuntimeContext out = ctx;
  for (auto& kv : out.inputs) {
    for (auto& var : kv.second) {
      if (var == nullptr || !var->IsType<Tensor>()) continue;
      const Tensor& t = var->Get<Tensor>();
      if (!t.IsInitialized() || platform::SameKind(t.place(), place)) continue;
      temps->push_back(std::make_unique<Variable>());
      TensorCopy(t, place, temps->back()->GetMutable<Tensor>());
      var = temps->back().get();
    }
  }
  return out;
}

}  // namespace

void Executor::RunOp(const PreparedOp& prepared, const RuntimeContext& ctx,
                     Scope* scope, int block_idx) {
  const OperatorBase& op = *prepared.op;
  try {
    if (!op.IsKernelOp()) {
      RunEnv env{scope, &preference_.place, this, &program_};
      op.RunWithoutKernel(env);
      return;
    }
    const KernelChoice& choice = prepared.choice;
    platform::Place place = choice.chosen.place;
    if (platform::SameKind(place, preference_.place)) place = preference_.place;
    platform::DeviceContext* dev_ctx = contexts_->Get(place);
    auto& kop = static_cast<const OperatorWithKernel&>(op);
    if (!choice.needs_transfer) {
      ExecutionContext exec_ctx(op, *scope, *dev_ctx, ctx);
      InferShapeContext shape_ctx(exec_ctx);
      kop.InferShape(&shape_ctx);
      choice.kernel->fn(exec_ctx);
      return;
    }
    std::vector<std::unique_ptr<Variable>> temps;
    RuntimeContext moved = TransferInputs(ctx, place, &temps);
    ExecutionContext exec_ctx(op, *scope, *dev_ctx, moved);
    InferShapeContext shape_ctx(exec_ctx);
    kop.InferShape(&shape_ctx);
    choice.kernel->fn(exec_ctx);
  } catch (const Exception& e) {
    platform::RethrowWithContext(
        e, OpLocation(op, prepared.index, block_idx));
  }
}

}  // namespace framework
}  // namespace paddle_lite
