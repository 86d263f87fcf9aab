// while: runs the ops of `sub_block` while the one-element bool
// `Condition` is true (possibly zero times). The sub-block runs in one
// child scope reused by every iteration (inference semantics): names it
// declares are local there, every other name reads and writes the outer
// variable, which is how loop state and the condition are updated.
#include "framework/executor.h"
#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

class WhileOp : public framework::OperatorBase {
 public:
  using OperatorBase::OperatorBase;

  void RunWithoutKernel(const framework::RunEnv& env) const override {
    int block = Attr<framework::BlockRef>("sub_block").idx;
    const auto& program = *env.program;
    PADDLE_ENFORCE(block > 0 && block < static_cast<int>(program.blocks.size()),
                   errors::InvalidArgument("while: sub_block ", block,
                                           " does not exist (the program has ",
                                           program.blocks.size(), " blocks)."));
    auto* cond_var = env.scope->FindVar(Input("Condition"));
    PADDLE_ENFORCE(cond_var != nullptr && cond_var->IsType<framework::Tensor>(),
                   errors::NotFound("while: condition '", Input("Condition"),
                                    "' is not a tensor."));
    const auto& cond = cond_var->Get<framework::Tensor>();
    PADDLE_ENFORCE(cond.dtype() == framework::DataType::kBool &&
                       cond.numel() == 1 && cond.place().is_host(),
                   errors::InvalidArgument(
                       "while: condition '", Input("Condition"),
                       "' must be a one-element bool tensor on the CPU, got ",
                       framework::TensorSummary(cond), "."));

    framework::Scope& step = env.scope->NewScope();
    // Frees the step scope however the loop ends.
    struct ScopeGuard {
      const framework::Scope* parent;
      framework::Scope* child;
      ~ScopeGuard() { parent->DeleteScope(child); }
    } guard{env.scope, &step};

    auto contexts = env.executor->ResolveBlock(block, &step);
    const auto& locals = program.blocks[block].vars;
    while (cond_var->Get<framework::Tensor>().data<bool>()[0]) {
      // A condition that never turns false, or loops that nest to multiply
      // (a hostile or broken program), end the run with an error instead
      // of holding its thread forever.
      env.executor->CountLoopIteration("while", Input("Condition"));
      // Each iteration starts from clean local state, as Paddle's
      // inference-mode while does.
      for (auto& var : locals) {
        auto* v = step.FindLocalVar(var.name);
        if (v == nullptr) continue;
        if (v->IsType<framework::Tensor>()) {
          v->GetMutable<framework::Tensor>()->set_lod({});
        } else if (v->IsType<framework::TensorList>()) {
          v->GetMutable<framework::TensorList>()->clear();
        }
      }
      env.executor->RunResolved(block, &step, contexts);
    }
  }
};

class WhileOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "outer variables the sub-block reads")
        .AsDuplicable()
        .AsDispensable();
    AddInput("Condition", "one-element bool tensor; loop while true");
    AddOutput("Out", "outer variables the sub-block writes")
        .AsDuplicable()
        .AsDispensable();
    AddOutput("StepScopes", "bookkeeping (training)").AsExtra();
    AddAttr<framework::BlockRef>("sub_block", "the loop body");
    AddAttr<bool>("is_test", "inference mode").SetDefault(false);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(while,
                  paddle_lite::operators::WhileOp,
                  paddle_lite::operators::WhileOpMaker);
