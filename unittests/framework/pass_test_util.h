// Helpers of the graph-pass tests: apply passes to a built program and
// check that the rewritten program computes what the original did.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/pass.h"
#include "framework/program_builder.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace framework {
namespace pass_testing {

/// Runs block 0 of `program` with the PLAIN kernels in a child scope of
/// `weights`, feeding `inputs` by col; returns the fetched tensors.
inline std::vector<Tensor> RunProgram(const ProgramDesc& program,
                                      const Scope& weights,
                                      const std::vector<Tensor>& inputs) {
  platform::DeviceContextPool pool(
      platform::DeviceContextOptions::WithThreads(1));
  Executor executor(program, KernelPreference{}, &pool);
  executor.Prepare(0);
  Scope& scope = weights.NewScope();
  *scope.Var("feed")->GetMutable<TensorList>() = inputs;
  scope.Var("fetch")->GetMutable<TensorList>();
  std::vector<Tensor> fetched;
  try {
    executor.Run(0, &scope);
    fetched = scope.FindVar("fetch")->Get<TensorList>();
  } catch (...) {
    weights.DeleteScope(&scope);
    throw;
  }
  weights.DeleteScope(&scope);
  return fetched;
}

/// A deep copy of the builder's parameters in a fresh scope.
inline std::shared_ptr<Scope> CopyWeights(const ProgramBuilder& builder) {
  auto weights = std::make_shared<Scope>();
  for (auto& name : builder.parameters().LocalVarNames()) {
    TensorCopy(builder.parameters().FindVar(name)->Get<Tensor>(),
               platform::CPUPlace{}, weights->Var(name)->GetMutable<Tensor>());
  }
  return weights;
}

/// The op types of block 0, in order.
inline std::vector<std::string> OpTypes(const ProgramDesc& program) {
  std::vector<std::string> types;
  for (auto& op : program.blocks[0].ops) types.push_back(op.type);
  return types;
}

/// What a pass did to a program.
struct PassOutcome {
  ProgramDesc program;               // the rewritten program
  std::shared_ptr<Scope> weights;    // its weights (with added constants)
  std::vector<std::string> changes;  // every pass's change lines
};

/// Applies `passes` (all registered ones when empty) to the builder's
/// program and weights, runs the original and the result on `inputs` and
/// expects the same outputs (within 1e-5 absolute plus 1e-5 relative) and
/// the same fetch targets.
inline PassOutcome ApplyAndCompare(const ProgramBuilder& builder,
                                   const std::vector<std::string>& passes,
                                   const std::vector<Tensor>& inputs) {
  const ProgramDesc original = builder.Build();
  PassOutcome outcome;
  outcome.program = original;
  outcome.weights = CopyWeights(builder);
  for (auto& report :
       ApplyPasses(&outcome.program, outcome.weights.get(), passes)) {
    outcome.changes.insert(outcome.changes.end(), report.changes.begin(),
                           report.changes.end());
  }
  EXPECT_EQ(outcome.program.FeedTargetNames(), original.FeedTargetNames());
  EXPECT_EQ(outcome.program.FetchTargetNames(), original.FetchTargetNames());
  const auto expected = RunProgram(original, builder.parameters(), inputs);
  const auto got = RunProgram(outcome.program, *outcome.weights, inputs);
  EXPECT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size() && i < expected.size(); ++i) {
    SCOPED_TRACE("fetch col " + std::to_string(i));
    paddle_lite::testing::ExpectTensorNear(got[i], expected[i], 1e-5, 1e-5);
  }
  return outcome;
}

/// The op of block 0 at `index`.
inline const OpDesc& OpAt(const PassOutcome& outcome, size_t index) {
  return outcome.program.blocks[0].ops.at(index);
}

}  // namespace pass_testing
}  // namespace framework
}  // namespace paddle_lite
