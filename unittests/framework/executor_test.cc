// The executor: feed and fetch by col, shapes re-inferred between runs,
// errors that name the op, and every missing kernel listed at once.
#include "framework/executor.h"

#include <algorithm>

#include "framework/kernel_registry.h"
#include "framework/make_only.h"
#include "framework/op_registry.h"
#include "framework/program_builder.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace framework {
namespace {

using testing::ExpectError;
using testing::MakeTensor;

platform::DeviceContextOptions OneThread(
    std::shared_ptr<platform::CacheBudget> budget = nullptr) {
  auto options = platform::DeviceContextOptions::WithThreads(1);
  options.cache_budget = std::move(budget);
  return options;
}

struct Runner {
  explicit Runner(const ProgramDesc& p,
                  std::shared_ptr<platform::CacheBudget> budget = nullptr)
      : program(p),
        pool(OneThread(std::move(budget))),
        executor(program, KernelPreference{}, &pool) {
    executor.Prepare(0);
    scope.Var("feed")->GetMutable<TensorList>()->resize(
        program.FeedTargetNames().size());
  }
  void Feed(int col, Tensor t) {
    (*scope.Var("feed")->GetMutable<TensorList>())[col] = std::move(t);
  }
  const Tensor& Fetched(int col) {
    return scope.FindVar("fetch")->Get<TensorList>().at(col);
  }
  ProgramDesc program;
  platform::DeviceContextPool pool;
  Executor executor;
  Scope scope;
};

// Two inputs and two outputs whose cols cross: out col 0 = relu(b), out
// col 1 = relu(a).
ProgramDesc CrossedProgram() {
  ProgramBuilder builder;
  auto a = builder.AddInput("a", DataType::kFloat32, {-1, 2});
  auto b = builder.AddInput("b", DataType::kFloat32, {-1, 2});
  auto ra = builder.AddVar("relu_a");
  auto rb = builder.AddVar("relu_b");
  builder.AddOp("relu", {{"X", {a}}}, {{"Out", {ra}}});
  builder.AddOp("relu", {{"X", {b}}}, {{"Out", {rb}}});
  builder.AddOutput(rb);
  builder.AddOutput(ra);
  return builder.Build();
}

// An op may write its own input in place at its size (reshape2, cast
// and batch_norm's MeanOut do, tested with them); resized, the kernel
// would read the old data at the new size: an error naming the op.
TEST(Executor, AnOpResizingItsOwnInputIsAnError) {
  for (auto library :
       {framework::LibraryType::Plain(), framework::LibraryType::MKLDNN()}) {
    ExpectError(
        [&] {
          testing::OpTester t("pool2d");
          t.Input("X", testing::RandomTensor<float>({1, 2, 4, 4}))
              .Output("Out")
              .AliasOutputToInput("Out", "X")
              .Attr("pooling_type", std::string("max"))
              .Attr("ksize", std::vector<int>{2, 2})
              .Attr("strides", std::vector<int>{2, 2})
              .Attr("paddings", std::vector<int>{0, 0});
          t.Run(library);
        },
        ErrorCode::kInvalidArgument,
        {"op 'pool2d'", "output Out 'X' is also an input of the op",
         "from [1, 2, 4, 4] to [1, 2, 2, 2]"});
  }
}

TEST(Executor, FeedAndFetchFollowCol) {
  ProgramDesc p = CrossedProgram();
  // Paddle's saver writes feed ops in descending col order.
  ASSERT_EQ(p.blocks[0].ops[0].type, "feed");
  EXPECT_EQ(AttrCast<int>(p.blocks[0].ops[0].attrs.at("col")), 1);
  EXPECT_EQ(p.FeedTargetNames(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p.FetchTargetNames(),
            (std::vector<std::string>{"relu_b", "relu_a"}));
  Runner r(p);
  r.Feed(0, MakeTensor<float>({1, 2}, {-1, 1}));
  r.Feed(1, MakeTensor<float>({1, 2}, {2, -2}));
  r.executor.Run(0, &r.scope);
  testing::ExpectTensorNear(r.Fetched(0), MakeTensor<float>({1, 2}, {2, 0}));
  testing::ExpectTensorNear(r.Fetched(1), MakeTensor<float>({1, 2}, {0, 1}));
}

// The run that records a plan frees each intermediate after its last
// reader (its peak is near the planned arena, not the sum of all
// intermediates); outputs nobody reads and fetched ones stay; replayed
// runs and runs of other shapes still compute the same.
TEST(Executor, RecordingRunFreesIntermediatesAfterLastRead) {
  ProgramBuilder builder;
  auto x = builder.AddInput("x", DataType::kFloat32, {-1, 2});
  for (const char* v : {"r1", "r2", "unread", "out"}) builder.AddVar(v);
  builder.AddOp("scale", {{"X", {x}}}, {{"Out", {"r1"}}},
                {{"scale", 2.f}, {"bias", 1.f}});
  builder.AddOp("scale", {{"X", {"r1"}}}, {{"Out", {"r2"}}}, {{"scale", 3.f}});
  builder.AddOp("relu", {{"X", {"r2"}}}, {{"Out", {"unread"}}});
  builder.AddOp("scale", {{"X", {"r2"}}}, {{"Out", {"out"}}},
                {{"scale", -1.f}});
  builder.AddOutput("out");
  Runner r(builder.Build());
  auto expect = [&](std::vector<float> in) {
    std::vector<float> want;
    for (float v : in) want.push_back(-3.f * (2.f * v + 1.f));
    const int64_t rows = static_cast<int64_t>(in.size()) / 2;
    r.Feed(0, MakeTensor<float>({rows, 2}, in));
    r.executor.Run(0, &r.scope);
    testing::ExpectTensorNear(r.Fetched(0), MakeTensor<float>({rows, 2}, want));
  };
  expect({1, -2});
  EXPECT_FALSE(r.executor.last_run_stats().replayed);
  EXPECT_FALSE(r.scope.FindVar("r1")->Get<Tensor>().IsInitialized());
  EXPECT_FALSE(r.scope.FindVar("r2")->Get<Tensor>().IsInitialized());
  EXPECT_TRUE(r.scope.FindVar("unread")->Get<Tensor>().IsInitialized());
  EXPECT_TRUE(r.scope.FindVar("out")->Get<Tensor>().IsInitialized());
  EXPECT_GT(r.executor.last_run_stats().arena_bytes, 0u);
  expect({3, 4});  // replayed: every buffer back in the arena
  EXPECT_TRUE(r.executor.last_run_stats().replayed);
  EXPECT_TRUE(r.scope.FindVar("r1")->Get<Tensor>().IsInitialized());
  expect({1, 2, 3, 4, 5, 6});  // another shape: recorded anew
  EXPECT_FALSE(r.executor.last_run_stats().replayed);
  expect({-1, -2});  // the first shape's plan again
  EXPECT_TRUE(r.executor.last_run_stats().replayed);
}

// ForgetPlans (a predictor's warm-up at load) drops the plans and arenas
// but keeps what was listed of the scope's variables, which stays valid:
// the next run records anew and computes the same, the arena's tensors let
// go of it, and a run in another scope lists that scope anew.
TEST(Executor, ForgottenPlansRecordAnewInTheSameOrAnotherScope) {
  ProgramBuilder builder;
  auto x = builder.AddInput("x", DataType::kFloat32, {-1, 2});
  for (const char* v : {"doubled", "out"}) builder.AddVar(v);
  builder.AddOp("scale", {{"X", {x}}}, {{"Out", {"doubled"}}},
                {{"scale", 2.f}});
  builder.AddOp("relu", {{"X", {"doubled"}}}, {{"Out", {"out"}}});
  builder.AddOutput("out");
  Runner r(builder.Build());
  auto expect = [&](Scope* scope, std::vector<float> in, bool replayed) {
    std::vector<float> want;
    for (float v : in) want.push_back(std::max(0.f, 2.f * v));
    const int64_t rows = static_cast<int64_t>(in.size()) / 2;
    (*scope->Var("feed")->GetMutable<TensorList>())[0] =
        MakeTensor<float>({rows, 2}, in);
    r.executor.Run(0, scope);
    EXPECT_EQ(r.executor.last_run_stats().replayed, replayed);
    testing::ExpectTensorNear(scope->FindVar("fetch")->Get<TensorList>().at(0),
                              MakeTensor<float>({rows, 2}, want));
  };
  expect(&r.scope, {1, -2}, false);
  expect(&r.scope, {3, 4}, true);  // its tensors now in the arena
  EXPECT_TRUE(r.scope.FindVar("doubled")->Get<Tensor>().IsInitialized());
  r.executor.ForgetPlans();
  EXPECT_FALSE(r.scope.FindVar("doubled")->Get<Tensor>().IsInitialized());
  expect(&r.scope, {-5, 6}, false);
  expect(&r.scope, {7, -8}, true);
  expect(&r.scope, {1, 2, 3, 4}, false);
  r.executor.ForgetPlans();
  Scope other;
  other.Var("feed")->GetMutable<TensorList>()->resize(1);
  expect(&other, {-1, 9}, false);
  expect(&other, {2, -3}, true);
  EXPECT_EQ(r.executor.last_run_stats().plans_cached, 1u);
}

// out = 6 x + 1, through r1 and r2 (rows of 256).
ProgramDesc ThreeScalesProgram() {
  ProgramBuilder builder;
  auto x = builder.AddInput("x", DataType::kFloat32, {-1, 256});
  for (const char* v : {"r1", "r2", "out"}) builder.AddVar(v);
  builder.AddOp("scale", {{"X", {x}}}, {{"Out", {"r1"}}}, {{"scale", 2.f}});
  builder.AddOp("scale", {{"X", {"r1"}}}, {{"Out", {"r2"}}}, {{"scale", 3.f}});
  builder.AddOp("scale", {{"X", {"r2"}}}, {{"Out", {"out"}}}, {{"bias", 1.f}});
  builder.AddOutput("out");
  return builder.Build();
}

// Scopes made and dropped one after another, often at one address: each
// run resolves its own scope's variables (what was resolved for a scope
// gone before is never used again, wherever the new one lies).
TEST(Executor, EachNewScopeIsResolvedAnewWhateverItsAddress) {
  ProgramDesc program = CrossedProgram();
  platform::DeviceContextPool pool(OneThread());
  Executor executor(program, KernelPreference{}, &pool);
  for (int run = 0; run < 6; ++run) {
    auto scope = std::make_unique<Scope>();
    auto& feeds = *scope->Var("feed")->GetMutable<TensorList>();
    feeds.resize(2);
    const float v = static_cast<float>(run + 1);
    feeds[0] = MakeTensor<float>({1, 2}, {-v, v});
    feeds[1] = MakeTensor<float>({1, 2}, {2 * v, -2 * v});
    executor.Run(0, scope.get());
    const auto& fetched = scope->FindVar("fetch")->Get<TensorList>();
    testing::ExpectTensorNear(fetched.at(0),
                              MakeTensor<float>({1, 2}, {2 * v, 0}));
    testing::ExpectTensorNear(fetched.at(1), MakeTensor<float>({1, 2}, {0, v}));
  }
}

// Every plan's buffers share one host arena, allocated with half again the
// room a plan needs: a somewhat larger shape replays in it (no fresh pages
// to fault in), a much larger one gets a new one; all compute the same.
TEST(Executor, ArenaHasRoomForSomewhatLargerShapes) {
  Runner r(ThreeScalesProgram());
  // Runs `rows` twice (recording, then replaying); whether the replay
  // allocated an arena.
  auto replay_allocates = [&](int64_t rows) {
    bool allocated = false;
    for (int run = 0; run < 2; ++run) {
      std::vector<float> in(rows * 256), want(rows * 256);
      for (size_t i = 0; i < in.size(); ++i) {
        in[i] = static_cast<float>(i % 7) - 3.f;
        want[i] = 6.f * in[i] + 1.f;
      }
      r.Feed(0, MakeTensor<float>({rows, 256}, in));
      r.executor.Run(0, &r.scope);
      testing::ExpectTensorNear(r.Fetched(0),
                                MakeTensor<float>({rows, 256}, want));
      EXPECT_EQ(r.executor.last_run_stats().replayed, run == 1);
      allocated = r.executor.last_run_stats().arena_allocated;
    }
    return allocated;
  };
  EXPECT_TRUE(replay_allocates(100));   // the first arena
  EXPECT_FALSE(replay_allocates(140));  // within half again as much
  EXPECT_FALSE(replay_allocates(60));
  EXPECT_TRUE(replay_allocates(400));  // past it: a larger arena
  EXPECT_FALSE(replay_allocates(110));
}

// What the cache budget evicts from an executor is freed as its next run
// starts, or at once when it is told to drop it (a predictor's idle clone,
// which may never run again): its tensors let go of the evicted arena, and
// its next run records anew and computes the same.
TEST(Executor, EvictedArenasGoWhenDroppedBetweenRuns) {
  const ProgramDesc program = ThreeScalesProgram();
  const auto options =
      OneThread(std::make_shared<platform::CacheBudget>(2 << 20));
  platform::DeviceContextPool idle_contexts(options), busy_contexts(options);
  Executor idle(program, KernelPreference{}, &idle_contexts);
  Executor busy(program, KernelPreference{}, &busy_contexts);
  Scope idle_scope, busy_scope;
  auto run = [](Executor& executor, Scope& scope, int64_t rows) {
    std::vector<float> in(rows * 256), want(rows * 256);
    for (size_t i = 0; i < in.size(); ++i) {
      in[i] = static_cast<float>(i % 5) - 2.f;
      want[i] = 6.f * in[i] + 1.f;
    }
    auto& feeds = *scope.Var("feed")->GetMutable<TensorList>();
    feeds.resize(1);
    feeds[0] = MakeTensor<float>({rows, 256}, in);
    executor.Run(0, &scope);
    testing::ExpectTensorNear(scope.FindVar("fetch")->Get<TensorList>().at(0),
                              MakeTensor<float>({rows, 256}, want));
  };
  run(idle, idle_scope, 100);
  run(idle, idle_scope, 100);  // replayed: its tensors in an arena
  ASSERT_TRUE(idle.last_run_stats().replayed);
  ASSERT_TRUE(idle_scope.FindVar("r1")->Get<Tensor>().IsInitialized());
  const uint64_t evictions = options.cache_budget->evictions();
  run(busy, busy_scope, 1000);
  run(busy, busy_scope, 1000);  // an arena of 3 MB: the idle one's goes
  ASSERT_GT(options.cache_budget->evictions(), evictions);
  EXPECT_TRUE(idle_scope.FindVar("r1")->Get<Tensor>().IsInitialized())
      << "freed before the idle executor was told";
  idle.DropEvicted();
  EXPECT_FALSE(idle_scope.FindVar("r1")->Get<Tensor>().IsInitialized());
  run(idle, idle_scope, 100);
  EXPECT_FALSE(idle.last_run_stats().replayed);
  run(idle, idle_scope, 100);
  EXPECT_TRUE(idle.last_run_stats().replayed);
}

// A plan keeps each tensor's LoD, and the budget counts it: a sequence
// model sees a new LoD on nearly every request, and its plans are mostly
// offsets.
TEST(Executor, PlansCountTheLoDTheyKeep) {
  ProgramBuilder builder;
  std::string x = builder.AddInput("x", DataType::kFloat32, {-1, 1}, 1);
  const int kOps = 10;
  for (int i = 0; i < kOps; ++i) {
    std::string y = builder.AddVar("relu" + std::to_string(i));
    builder.AddOp("relu", {{"X", {x}}}, {{"Out", {y}}});
    x = y;
  }
  builder.AddOutput(x);
  auto budget = std::make_shared<platform::CacheBudget>(size_t{1} << 30);
  Runner r(builder.Build(), budget);
  const int kRuns = 5;
  const size_t kSequences = 1000;
  for (int run = 0; run < kRuns; ++run) {
    const size_t rows = kSequences + run;
    LoD lod(1);
    for (size_t i = 0; i <= kSequences; ++i) lod[0].push_back(i);
    lod[0].back() = rows;  // a new LoD each run
    Tensor t = MakeTensor<float>({static_cast<int64_t>(rows), 1},
                                 std::vector<float>(rows, 1.f));
    t.set_lod(lod);
    r.Feed(0, std::move(t));
    r.executor.Run(0, &r.scope);
    ASSERT_EQ(r.Fetched(0).lod(), lod);
  }
  // Every relu's output keeps the input's LoD.
  const size_t lod_bytes =
      kRuns * (kOps - 1) * (kSequences + 1) * sizeof(size_t);
  EXPECT_GE(budget->UsedByCache()["plans"], lod_bytes);
}

TEST(Executor, ShapesAreReinferredWhenInputsChange) {
  Runner r(CrossedProgram());
  for (int rows : {1, 5, 2, 0, 3}) {
    std::vector<float> values(rows * 2, -1.0f);
    r.Feed(0, MakeTensor<float>({rows, 2}, values));
    r.Feed(1, MakeTensor<float>({rows, 2}, values));
    r.executor.Run(0, &r.scope);
    EXPECT_EQ(r.Fetched(0).dims(), (DDim{rows, 2}));
    EXPECT_EQ(r.Fetched(1).dims(), (DDim{rows, 2}));
  }
}

// y = reshape2(x, Shape = shape(x)): the target shape is read as values,
// but values the input shapes fix; `shape_from` names another input to
// take the Shape from instead (values that can change between runs).
ProgramDesc ReshapeToOwnShape(bool shape_from_input) {
  ProgramBuilder builder;
  auto x = builder.AddInput("x", DataType::kFloat32, {-1, 6});
  auto s = shape_from_input ? builder.AddInput("s", DataType::kInt32, {2})
                            : builder.AddVar("s", DataType::kInt32);
  auto y = builder.AddVar("y");
  if (!shape_from_input)
    builder.AddOp("shape", {{"Input", {x}}}, {{"Out", {s}}});
  builder.AddOp("reshape2", {{"X", {x}}, {"Shape", {s}}}, {{"Out", {y}}},
                {{"shape", std::vector<int32_t>{}}});
  builder.AddOutput(y);
  return builder.Build();
}

TEST(Executor, ValuesFixedByInputShapesAreNotReinferred) {
  Runner r(ReshapeToOwnShape(false));
  for (int rows : {2, 2, 3, 3, 2}) {
    r.Feed(0, MakeTensor<float>({rows, 6}, std::vector<float>(rows * 6, 1)));
    r.executor.Run(0, &r.scope);
    EXPECT_EQ(r.Fetched(0).dims(), (DDim{rows, 6}));
  }
  // The last run replayed the plan of 2 rows without inferring anything.
  EXPECT_TRUE(r.executor.last_run_stats().replayed);
  EXPECT_EQ(r.executor.last_run_stats().ops_inferred, 0);
}

// A view of a feed is not in the plan's arena; replay still gives it the
// dims of the replayed signature.
TEST(Executor, ViewsOfInputsTakeTheReplayedShape) {
  ProgramBuilder builder;
  auto x = builder.AddInput("x", DataType::kFloat32, {-1, 6});
  auto y = builder.AddVar("y");
  builder.AddOp("reshape2", {{"X", {x}}}, {{"Out", {y}}},
                {{"shape", std::vector<int32_t>{-1, 3}}});
  builder.AddOutput(y);
  Runner r(builder.Build());
  for (int rows : {2, 2, 3, 3, 2}) {
    r.Feed(0, MakeTensor<float>({rows, 6}, std::vector<float>(rows * 6, 1)));
    r.executor.Run(0, &r.scope);
    EXPECT_EQ(r.Fetched(0).dims(), (DDim{rows * 2, 3}));
  }
}

TEST(Executor, ValuesFromInputsAreReinferred) {
  Runner r(ReshapeToOwnShape(true));
  for (auto target : {std::vector<int32_t>{3, 4}, std::vector<int32_t>{6, 2},
                      std::vector<int32_t>{3, 4}}) {
    r.Feed(0, MakeTensor<float>({2, 6}, std::vector<float>(12, 1)));
    r.Feed(1, MakeTensor<int32_t>({2}, target));
    r.executor.Run(0, &r.scope);
    EXPECT_EQ(r.Fetched(0).dims(), (DDim{target[0], target[1]}));
  }
  EXPECT_TRUE(r.executor.last_run_stats().replayed);
  EXPECT_GT(r.executor.last_run_stats().ops_inferred, 0);
}

// Output sizes and slice bounds given as fed tensors: a run with the same
// shapes but other values replays the plan, and still re-infers the
// shapes that those values decide.
TEST(Executor, SizeAndBoundTensorsFromInputsAreReinferred) {
  ProgramBuilder builder;
  auto x = builder.AddInput("x", DataType::kFloat32, {1, 1, 2, 6});
  auto size = builder.AddInput("size", DataType::kInt32, {2});
  auto start = builder.AddInput("start", DataType::kInt32, {1});
  auto resized = builder.AddVar("resized");
  auto sliced = builder.AddVar("sliced");
  builder.AddOp("nearest_interp_v2", {{"X", {x}}, {"OutSize", {size}}},
                {{"Out", {resized}}}, {{"align_corners", false}});
  builder.AddOp("slice", {{"Input", {x}}, {"StartsTensor", {start}}},
                {{"Out", {sliced}}},
                {{"axes", std::vector<int32_t>{3}},
                 {"starts", std::vector<int32_t>{0}},
                 {"ends", std::vector<int32_t>{6}}});
  builder.AddOutput(resized);
  builder.AddOutput(sliced);
  Runner r(builder.Build());
  const std::vector<std::pair<std::vector<int32_t>, int32_t>> runs = {
      {{4, 4}, 1}, {{3, 5}, 4}, {{4, 4}, 1}, {{2, 9}, 0}};
  for (const auto& run : runs) {
    r.Feed(0, MakeTensor<float>({1, 1, 2, 6}, std::vector<float>(12, 1)));
    r.Feed(1, MakeTensor<int32_t>({2}, run.first));
    r.Feed(2, MakeTensor<int32_t>({1}, {run.second}));
    r.executor.Run(0, &r.scope);
    EXPECT_EQ(r.Fetched(0).dims(), (DDim{1, 1, run.first[0], run.first[1]}));
    EXPECT_EQ(r.Fetched(1).dims(), (DDim{1, 1, 2, 6 - run.second}));
  }
  EXPECT_TRUE(r.executor.last_run_stats().replayed);
}

// An op whose kernel chooses its outputs' rows from values (NMS): a
// first run of a signature that keeps no box leaves the dims its shape
// inference gave ({0, 6}); a replay that keeps boxes must still size
// what follows from them (a scale kept the 0 rows it was recorded with,
// and wrote past its buffer).
TEST(Executor, OutputsWhoseRowsTheValuesChooseAreReinferredOnReplay) {
  ProgramBuilder builder;
  auto boxes = builder.AddInput("boxes", DataType::kFloat32, {1, 2, 4});
  auto scores = builder.AddInput("scores", DataType::kFloat32, {1, 1, 2});
  auto kept = builder.AddVar("kept");
  auto index = builder.AddVar("index", DataType::kInt32);
  auto count = builder.AddVar("count", DataType::kInt32);
  auto scaled = builder.AddVar("scaled");
  builder.AddOp("multiclass_nms3", {{"BBoxes", {boxes}}, {"Scores", {scores}}},
                {{"Out", {kept}}, {"Index", {index}}, {"NmsRoisNum", {count}}},
                {{"score_threshold", 0.5f},
                 {"nms_top_k", -1},
                 {"keep_top_k", -1},
                 {"nms_threshold", 0.5f},
                 {"background_label", -1}});
  builder.AddOp("scale", {{"X", {kept}}}, {{"Out", {scaled}}},
                {{"scale", 2.0f}, {"bias", 0.0f}, {"bias_after_scale", true}});
  builder.AddOutput(scaled);
  Runner r(builder.Build());
  // Two boxes apart; scores below the threshold keep none, above it both.
  const std::vector<float> box_values = {0, 0, 1, 1, 5, 5, 6, 6};
  for (float score : {0.1f, 0.9f, 0.1f, 0.9f}) {
    r.Feed(0, MakeTensor<float>({1, 2, 4}, box_values));
    r.Feed(1, MakeTensor<float>({1, 1, 2}, {score, score}));
    r.executor.Run(0, &r.scope);
    const Tensor& out = r.Fetched(0);
    const int64_t rows = score > 0.5f ? 2 : 0;
    ASSERT_EQ(out.dims(), (DDim{rows, 6})) << "score " << score;
    for (int64_t i = 0; i < rows; ++i) {
      EXPECT_EQ(out.data<float>()[i * 6 + 1], 2 * score);  // the score
    }
  }
  EXPECT_TRUE(r.executor.last_run_stats().replayed);
}

// A view of a variable that a later op writes again, larger: the view
// keeps what it saw (the first run put the larger write in a new buffer),
// and so must every later run (a replay wrote both into the plan's
// buffer, sized for the larger).
TEST(Executor, AViewKeepsItsValuesWhenItsVariableIsWrittenAgainLarger) {
  ProgramBuilder builder;
  auto x = builder.AddInput("x", DataType::kFloat32, {2, 3});
  auto a = builder.AddVar("a");
  auto v = builder.AddVar("v");
  auto xshape = builder.AddVar("v.xshape");
  auto w = builder.AddVar("w");
  builder.AddOp("relu", {{"X", {x}}}, {{"Out", {a}}});
  builder.AddOp("reshape2", {{"X", {a}}}, {{"Out", {v}}, {"XShape", {xshape}}},
                {{"shape", std::vector<int32_t>{3, 2}}});
  builder.AddOp("concat", {{"X", {x, x}}}, {{"Out", {a}}}, {{"axis", 0}});
  builder.AddOp("scale", {{"X", {v}}}, {{"Out", {w}}},
                {{"scale", 1.0f}, {"bias", 0.0f}, {"bias_after_scale", true}});
  builder.AddOutput(w);
  builder.AddOutput(a);
  Runner r(builder.Build());
  const std::vector<float> in = {-1, 2, -3, 4, -5, 6};
  const std::vector<float> relu = {0, 2, 0, 4, 0, 6};
  for (int run = 0; run < 3; ++run) {
    // As a Predictor does, the last run's outputs go first.
    r.scope.Var("fetch")->GetMutable<TensorList>()->clear();
    r.Feed(0, MakeTensor<float>({2, 3}, in));
    r.executor.Run(0, &r.scope);
    const Tensor& out = r.Fetched(0);
    ASSERT_EQ(out.dims(), (DDim{3, 2})) << "run " << run;
    EXPECT_EQ(std::vector<float>(out.data<float>(), out.data<float>() + 6),
              relu)
        << "run " << run;
    EXPECT_EQ(r.Fetched(1).dims(), (DDim{4, 3})) << "run " << run;
  }
  // Every run as the first: such a block replays no plan.
  EXPECT_FALSE(r.executor.last_run_stats().replayed);
}

// A test op whose shape inference reads a value for some input shapes
// only: Out is X when X has one row, else N[0] rows of X's width (N read
// then). Recording runs of its signatures record different reads.
class RowsFromValueOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  void InferShape(InferShapeContext* ctx) const override {
    const DDim x = ctx->GetInputDim("X");
    if (x[0] == 1) {
      ctx->SetOutputDim("Out", x);
      return;
    }
    const Tensor& n = ctx->GetInputTensor("N");
    ctx->SetOutputDim("Out", {n.data<int32_t>()[0], x[1]});
  }
};

class RowsFromValueOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[rows, width]");
    AddInput("N", "int32 [1]: Out's rows when X has more than one");
    AddOutput("Out", "X, or N[0] rows of ones");
  }
};

template <typename T>
class RowsFromValueKernel : public OpKernel<T> {
 public:
  void Compute(const ExecutionContext& ctx) const override {
    auto* out = ctx.Output<Tensor>("Out");
    T* o = out->mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < out->numel(); ++i) o[i] = T(1);
  }
};

}  // namespace
}  // namespace framework
}  // namespace paddle_lite

REGISTER_OPERATOR(executor_test_rows_from_value,
                  paddle_lite::framework::RowsFromValueOp,
                  paddle_lite::framework::RowsFromValueOpMaker);
REGISTER_OP_KERNEL(executor_test_rows_from_value,
                   PLAIN,
                   CPUPlace,
                   paddle_lite::framework::RowsFromValueKernel<float>);

namespace paddle_lite {
namespace framework {
namespace {

// x [-1, 3] and n int32 [1] -> executor_test_rows_from_value -> relu.
ProgramDesc RowsFromValueThenRelu() {
  ProgramBuilder builder;
  auto x = builder.AddInput("x", DataType::kFloat32, {-1, 3});
  auto n = builder.AddInput("n", DataType::kInt32, {1});
  auto y = builder.AddVar("y");
  auto z = builder.AddVar("z");
  builder.AddOp("executor_test_rows_from_value", {{"X", {x}}, {"N", {n}}},
                {{"Out", {y}}});
  builder.AddOp("relu", {{"X", {y}}}, {{"Out", {z}}});
  builder.AddOutput(z);
  return builder.Build();
}

// Which ops infer shapes on replay is kept from one signature's plan to
// the next while the recording runs record the same; here they do not
// (the op reads N only for X of several rows), and a plan made after one
// that read nothing must still re-infer the rows N gives on replay.
TEST(Executor, ReplayRulesFollowWhatEachRecordingRead) {
  Runner r(RowsFromValueThenRelu());
  const std::vector<std::pair<int, int32_t>> runs = {{1, 7}, {1, 9}, {2, 4},
                                                     {2, 6}, {1, 5}, {2, 3}};
  int inferred[3] = {};  // on replays of 1 and of 2 rows
  for (const auto& run : runs) {
    SCOPED_TRACE("rows " + std::to_string(run.first) + ", n " +
                 std::to_string(run.second));
    r.Feed(0, MakeTensor<float>({run.first, 3},
                                std::vector<float>(run.first * 3, -1)));
    r.Feed(1, MakeTensor<int32_t>({1}, {run.second}));
    r.executor.Run(0, &r.scope);
    const int64_t rows = run.first == 1 ? 1 : run.second;
    EXPECT_EQ(r.Fetched(0).dims(), (DDim{rows, 3}));
    if (r.executor.last_run_stats().replayed) {
      inferred[run.first] = r.executor.last_run_stats().ops_inferred;
    }
  }
  // Replays of 2 rows re-infer the op, the relu and the fetch after it.
  EXPECT_EQ(inferred[2] - inferred[1], 3);
}

// A run that only makes primitives computes no values, so an op whose
// output shapes depend on them stops it there (instead of shaping what
// follows from garbage); one that reads only dims does not.
TEST(Executor, AMakeOnlyRunStopsWhereShapesNeedValues) {
  Runner r(RowsFromValueThenRelu());
  r.Feed(1, MakeTensor<int32_t>({1}, {4}));
  MakeOnlyScope making_only;
  r.Feed(0, MakeTensor<float>({1, 3}, std::vector<float>(3, -1)));
  EXPECT_NO_THROW(r.executor.Run(0, &r.scope));
  r.Feed(0, MakeTensor<float>({2, 3}, std::vector<float>(6, -1)));
  try {
    r.executor.Run(0, &r.scope);
    ADD_FAILURE() << "the run went past the op that reads N";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnavailable) << e.what();
    EXPECT_NE(std::string(e.what()).find(
                  "stops at op 'executor_test_rows_from_value'"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("N[0] ('n')"), std::string::npos)
        << e.what();
  }
}

// A run that only makes primitives gives each output of a kernel that
// computes nothing memory of its dims, unwritten, but leaves alone an output
// naming a weight the predictors share (batch_norm's MeanOut names its
// Mean): other predictors read it meanwhile. A run's own variable of the
// same name, and a run in the root scope itself, are not shared.
TEST(Executor, AMakeOnlyRunLeavesTheSharedWeightsAlone) {
  Scope root;
  *root.Var("mean")->GetMutable<Tensor>() = MakeTensor<float>({2}, {1, 2});
  Scope& run = root.NewScope();
  GiveUnwrittenMemoryToOutput(run, "mean", root.FindVar("mean"),
                              platform::CPUPlace{}, DataType::kInt32);
  testing::ExpectTensorNear(root.FindVar("mean")->Get<Tensor>(),
                            MakeTensor<float>({2}, {1, 2}));
  for (Scope* scope : {&run, &root}) {
    Variable* own = scope->Var(scope == &run ? "mean" : "out");
    own->GetMutable<Tensor>()->Resize({3});
    GiveUnwrittenMemoryToOutput(*scope, scope == &run ? "mean" : "out", own,
                                platform::CPUPlace{}, DataType::kInt32);
    ASSERT_TRUE(own->Get<Tensor>().IsInitialized());
    EXPECT_EQ(own->Get<Tensor>().dtype(), DataType::kInt32);
    EXPECT_EQ(own->Get<Tensor>().dims(), (DDim{3}));
  }
}

TEST(Executor, DeclaredShapesAreOnlyHints) {
  Runner r(CrossedProgram());  // declares [-1, 2]
  r.Feed(0, MakeTensor<float>({2, 2, 2}, std::vector<float>(8, 1)));
  r.Feed(1, MakeTensor<float>({3}, {1, 2, 3}));
  r.executor.Run(0, &r.scope);
  EXPECT_EQ(r.Fetched(0).dims(), (DDim{3}));
  EXPECT_EQ(r.Fetched(1).dims(), (DDim{2, 2, 2}));
}

TEST(Executor, WrongInputTypeNamesTheInput) {
  Runner r(CrossedProgram());
  r.Feed(0, MakeTensor<int64_t>({1}, {1}));
  r.Feed(1, MakeTensor<float>({1}, {1}));
  ExpectError([&] { r.executor.Run(0, &r.scope); }, ErrorCode::kInvalidArgument,
              {"op 'feed' (#1 in block 0", "'a'", "int64", "float32"});
}

TEST(Executor, MissingInputIsReported) {
  Runner r(CrossedProgram());
  r.Feed(0, MakeTensor<float>({1}, {1}));
  ExpectError([&] { r.executor.Run(0, &r.scope); },
              ErrorCode::kPreconditionNotMet, {"'b'", "not given"});
}

TEST(Executor, EveryOpWithoutKernelIsListed) {
  ProgramBuilder builder;
  auto x = builder.AddInput("x", DataType::kInt8, {2});
  auto y = builder.AddVar("y", DataType::kInt8);
  auto z = builder.AddVar("z", DataType::kInt8);
  auto w = builder.AddVar("w", DataType::kInt8);
  builder.AddOp("relu", {{"X", {x}}}, {{"Out", {y}}});
  builder.AddOp("relu", {{"X", {y}}}, {{"Out", {z}}});
  builder.AddOp("not_a_real_op", {{"X", {z}}}, {{"Out", {w}}});
  builder.AddOutput(w);
  ProgramDesc p = builder.Build();
  platform::DeviceContextPool pool(
      platform::DeviceContextOptions::WithThreads(1));
  Executor executor(p, KernelPreference{}, &pool);
  ExpectError([&] { executor.Prepare(0); }, ErrorCode::kUnimplemented,
              {"3 op(s)", "#1 relu (int8)", "#2 relu (int8)",
               "#3 not_a_real_op", "not registered"});
  // Inspection still works and marks them.
  const auto& block = executor.PrepareForInspection(0);
  EXPECT_EQ(block.ops.size(), 5u);
  EXPECT_FALSE(block.ops[1].problem.empty());
  EXPECT_EQ(block.ops[3].op, nullptr);
}

TEST(Executor, KernelErrorsNameTheOp) {
  ProgramBuilder builder;
  auto x = builder.AddInput("x", DataType::kFloat32, {2});
  auto y = builder.AddVar("y");
  builder.AddOp("relu", {{"X", {x}}}, {{"Out", {y}}});
  builder.AddOutput(y);
  Runner r(builder.Build());
  r.Feed(0, Tensor());  // never written
  ExpectError([&] { r.executor.Run(0, &r.scope); },
              ErrorCode::kPreconditionNotMet, {"'x'"});
}

// Blocks that each run the next one twice (two loops), 60 deep: preparing
// walks the variables of every sub-block, and a walk that went into each
// reference again would take 2^60 steps. It must take about 60.
TEST(Executor, PreparesBlocksThatEachRunTheNextTwiceQuickly) {
  ProgramBuilder b;
  auto cond = b.AddInput("cond", DataType::kBool, {1});
  auto x = b.AddInput("x", DataType::kFloat32, {1});
  int block = 0;
  for (int level = 0; level < 60; ++level) {
    const int next = b.AddBlock(block);
    for (int copy = 0; copy < 2; ++copy) {
      b.AddOp("while", {{"X", {x}}, {"Condition", {cond}}}, {{"Out", {x}}},
              {{"sub_block", BlockRef{next}}, {"is_test", true}}, block);
    }
    block = next;
  }
  b.AddOp("scale", {{"X", {x}}}, {{"Out", {x}}}, {{"scale", 2.0f}}, block);
  b.AddOutput(x);
  auto program = b.Build();
  platform::DeviceContextPool pool(
      platform::DeviceContextOptions::WithThreads(1));
  Executor executor(program, KernelPreference{}, &pool);
  Scope scope;
  auto* feeds = scope.Var("feed")->GetMutable<TensorList>();
  feeds->push_back(MakeTensor<bool>({1}, {false}));
  feeds->push_back(MakeTensor<float>({1}, {3.0f}));
  executor.Run(0, &scope);
  EXPECT_EQ(scope.FindVar("fetch")->Get<TensorList>()[0].data<float>()[0],
            3.0f);
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
