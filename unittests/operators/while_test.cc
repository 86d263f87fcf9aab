// while: a loop that doubles `acc` until the counter reaches `n`.
#include "framework/executor.h"
#include "framework/program_builder.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace operators {
namespace {

using framework::DataType;
using framework::Tensor;
using testing::MakeTensor;

// block 0: cond = i < n; while(cond) { block 1 }; fetch acc, i
// block 1: twice = acc * 2 (local); acc = twice; i = i + 1; cond = i < n
framework::ProgramDesc DoublingLoop() {
  framework::ProgramBuilder b;
  auto i = b.AddInput("i", DataType::kInt64, {1});
  auto n = b.AddInput("n", DataType::kInt64, {1});
  auto acc = b.AddInput("acc", DataType::kFloat32, {-1});
  auto cond = b.AddVar("cond", DataType::kBool, {1});
  b.AddOp("less_than", {{"X", {i}}, {"Y", {n}}}, {{"Out", {cond}}});
  int body = b.AddBlock(0);
  auto scopes = b.AddVar("step_scopes", DataType::kFloat32, {});
  auto twice = b.AddVar("twice", DataType::kFloat32, {-1}, body);
  b.AddOp("scale", {{"X", {acc}}}, {{"Out", {twice}}}, {{"scale", 2.0f}}, body);
  b.AddOp("assign", {{"X", {twice}}}, {{"Out", {acc}}}, {}, body);
  b.AddOp("scale", {{"X", {i}}}, {{"Out", {i}}},
          {{"scale", 1.0f}, {"bias", 1.0f}}, body);
  b.AddOp("less_than", {{"X", {i}}, {"Y", {n}}}, {{"Out", {cond}}}, {}, body);
  b.AddOp("while", {{"X", {acc, i, n}}, {"Condition", {cond}}},
          {{"Out", {acc, i}}, {"StepScopes", {scopes}}},
          {{"sub_block", framework::BlockRef{body}}, {"is_test", true}});
  b.AddOutput(acc);
  b.AddOutput(i);
  return b.Build();
}

struct LoopResult {
  std::vector<float> acc;
  int64_t i;
};

LoopResult RunLoop(const framework::ProgramDesc& program,
                   int64_t start,
                   int64_t n,
                   std::vector<float> acc) {
  platform::DeviceContextPool pool(
      platform::DeviceContextOptions::WithThreads(1));
  framework::Executor executor(program, framework::KernelPreference{}, &pool);
  framework::Scope scope;
  auto* feeds = scope.Var("feed")->GetMutable<framework::TensorList>();
  feeds->push_back(MakeTensor<int64_t>({1}, {start}));
  feeds->push_back(MakeTensor<int64_t>({1}, {n}));
  feeds->push_back(MakeTensor<float>({static_cast<int64_t>(acc.size())}, acc));
  executor.Run(0, &scope);
  const auto& fetched = scope.FindVar("fetch")->Get<framework::TensorList>();
  return {testing::ToVector<float>(fetched[0]), fetched[1].data<int64_t>()[0]};
}

TEST(WhileOp, LoopsUntilTheConditionIsFalse) {
  auto program = DoublingLoop();
  auto r = RunLoop(program, 0, 5, {1.0f, -3.0f});
  EXPECT_EQ(r.i, 5);
  EXPECT_EQ(r.acc, (std::vector<float>{32.0f, -96.0f}));
  r = RunLoop(program, 3, 4, {1.5f});
  EXPECT_EQ(r.i, 4);
  EXPECT_EQ(r.acc, (std::vector<float>{3.0f}));
}

TEST(WhileOp, ZeroIterations) {
  auto r = RunLoop(DoublingLoop(), 7, 2, {1.0f, 2.0f});
  EXPECT_EQ(r.i, 7);
  EXPECT_EQ(r.acc, (std::vector<float>{1.0f, 2.0f}));
}

TEST(WhileOp, RunsAgainOnTheSameExecutorAndLeavesNoScopes) {
  auto program = DoublingLoop();
  platform::DeviceContextPool pool(
      platform::DeviceContextOptions::WithThreads(1));
  framework::Executor executor(program, framework::KernelPreference{}, &pool);
  framework::Scope scope;
  for (int round = 0; round < 3; ++round) {
    auto* feeds = scope.Var("feed")->GetMutable<framework::TensorList>();
    feeds->clear();
    feeds->push_back(MakeTensor<int64_t>({1}, {0}));
    feeds->push_back(MakeTensor<int64_t>({1}, {round}));
    feeds->push_back(MakeTensor<float>({1}, {1.0f}));
    executor.Run(0, &scope);
    const auto& fetched = scope.FindVar("fetch")->Get<framework::TensorList>();
    EXPECT_EQ(fetched[0].data<float>()[0], static_cast<float>(1 << round));
  }
  // The step scope is deleted after each loop: deleting a fresh child works
  // and nothing else is left behind.
  auto& kid = scope.NewScope();
  scope.DeleteScope(&kid);
}

TEST(WhileOp, ALoopThatNeverEndsIsStoppedAtTheLimit) {
  // cond stays true: the body never updates it.
  framework::ProgramBuilder b;
  auto c = b.AddInput("c", DataType::kBool, {1});
  auto x = b.AddInput("x", DataType::kFloat32, {1});
  int body = b.AddBlock(0);
  b.AddOp("scale", {{"X", {x}}}, {{"Out", {x}}}, {{"scale", 1.0f}}, body);
  b.AddOp("while", {{"X", {x}}, {"Condition", {c}}}, {{"Out", {x}}},
          {{"sub_block", framework::BlockRef{body}}, {"is_test", true}});
  b.AddOutput(x);
  auto program = b.Build();
  platform::DeviceContextPool pool(
      platform::DeviceContextOptions::WithThreads(1));
  framework::ExecutorOptions options;
  options.max_loop_iterations = 100;
  framework::Executor executor(program, framework::KernelPreference{}, &pool,
                               options);
  framework::Scope scope;
  auto* feeds = scope.Var("feed")->GetMutable<framework::TensorList>();
  feeds->push_back(MakeTensor<bool>({1}, {true}));
  feeds->push_back(MakeTensor<float>({1}, {1.0f}));
  testing::ExpectError([&] { executor.Run(0, &scope); },
                       ErrorCode::kResourceExhausted,
                       {"op 'while'", "100 loop iterations", "condition 'c'",
                        "SetMaxLoopIterations"});
  // The same executor runs a loop that ends.
  feeds->clear();
  feeds->push_back(MakeTensor<bool>({1}, {false}));
  feeds->push_back(MakeTensor<float>({1}, {1.0f}));
  executor.Run(0, &scope);
}

TEST(WhileOp, TheLimitCountsEveryLoopOfARunTogether) {
  // Two loops of one program, each of 30 iterations: 60 in the run.
  framework::ProgramBuilder b;
  auto i = b.AddInput("i", DataType::kInt64, {1});
  auto j = b.AddInput("j", DataType::kInt64, {1});
  auto n = b.AddInput("n", DataType::kInt64, {1});
  for (auto counter : {i, j}) {
    auto cond = b.AddVar("cond_" + counter, DataType::kBool, {1});
    b.AddOp("less_than", {{"X", {counter}}, {"Y", {n}}}, {{"Out", {cond}}});
    int body = b.AddBlock(0);
    b.AddOp("scale", {{"X", {counter}}}, {{"Out", {counter}}},
            {{"scale", 1.0f}, {"bias", 1.0f}}, body);
    b.AddOp("less_than", {{"X", {counter}}, {"Y", {n}}}, {{"Out", {cond}}}, {},
            body);
    b.AddOp("while", {{"X", {counter, n}}, {"Condition", {cond}}},
            {{"Out", {counter}}},
            {{"sub_block", framework::BlockRef{body}}, {"is_test", true}});
  }
  b.AddOutput(i);
  b.AddOutput(j);
  auto program = b.Build();
  platform::DeviceContextPool pool(
      platform::DeviceContextOptions::WithThreads(1));
  auto run = [&](int64_t limit) {
    framework::ExecutorOptions options;
    options.max_loop_iterations = limit;
    framework::Executor executor(program, framework::KernelPreference{}, &pool,
                                 options);
    framework::Scope scope;
    auto* feeds = scope.Var("feed")->GetMutable<framework::TensorList>();
    for (int64_t v : {0, 0, 30})
      feeds->push_back(MakeTensor<int64_t>({1}, {v}));
    executor.Run(0, &scope);
  };
  EXPECT_NO_THROW(run(60));
  EXPECT_NO_THROW(run(0));  // no limit
  testing::ExpectError([&] { run(59); }, ErrorCode::kResourceExhausted,
                       {"59 loop iterations", "condition 'cond_j'"});
}

TEST(WhileOp, ConditionMustBeOneBool) {
  framework::ProgramBuilder b;
  auto c = b.AddInput("c", DataType::kFloat32, {1});
  int body = b.AddBlock(0);
  b.AddOp("while", {{"Condition", {c}}}, {},
          {{"sub_block", framework::BlockRef{body}}});
  auto program = b.Build();
  platform::DeviceContextPool pool(
      platform::DeviceContextOptions::WithThreads(1));
  framework::Executor executor(program, framework::KernelPreference{}, &pool);
  framework::Scope scope;
  scope.Var("feed")->GetMutable<framework::TensorList>()->push_back(
      MakeTensor<float>({1}, {1.0f}));
  testing::ExpectError([&] { executor.Run(0, &scope); },
                       ErrorCode::kInvalidArgument,
                       {"op 'while'", "one-element bool", "float32[1]"});
}

}  // namespace
}  // namespace operators
}  // namespace paddle_lite
