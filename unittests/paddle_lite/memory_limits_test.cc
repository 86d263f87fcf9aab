// Memory limits (issue 14): a shape whose tensor or run would pass the
// configured bytes is a ResourceExhausted error naming the op and the
// shape, raised before allocating; the predictor keeps working after it.
#include <functional>
#include <string>
#include <vector>

#include "framework/program_builder.h"
#include "paddle_lite/paddle_lite.h"
#include "unittests/test_utils/loop_model.h"
#include "unittests/test_utils/model_paths.h"
#include "unittests/test_utils/op_tester.h"
#include "unittests/test_utils/scratch_dir.h"

namespace paddle_lite {
namespace {

void Feed(Predictor* p, const std::vector<int64_t>& shape) {
  auto in = p->GetInputHandle(p->GetInputNames()[0]);
  in->Reshape(shape);
  int64_t n = 1;
  for (auto d : shape) n *= d;
  float* data = in->mutable_data<float>();
  for (int64_t i = 0; i < n; ++i) data[i] = 0.01f * static_cast<float>(i % 13);
}

std::string RunError(Predictor* p) {
  try {
    p->Run();
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), ErrorCode::kResourceExhausted) << e.what();
    return e.what();
  }
  return "";
}

// Runs the counting loop to n; the error's text, "" when it ran.
std::string CountTo(Predictor* p, int64_t n) {
  auto names = p->GetInputNames();
  for (const auto& name : names) {
    auto in = p->GetInputHandle(name);
    in->Reshape({1});
    in->mutable_data<int64_t>()[0] = name == "n" ? n : 0;
  }
  try {
    p->Run();
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), ErrorCode::kResourceExhausted) << e.what();
    return e.what();
  }
  EXPECT_EQ(p->GetOutputHandle(p->GetOutputNames()[0])->data<int64_t>()[0], n);
  return "";
}

TEST(LoopLimit, APredictorStopsALoopPastItsConfiguredIterations) {
  const std::string program = testing::CountingLoopProgram();
  Config config;
  config.SetModelBuffer(program.data(), program.size(), nullptr, 0);
  EXPECT_EQ(config.max_loop_iterations(), 1 << 20);
  config.SetMaxLoopIterations(50);
  auto p = CreatePredictor(config);
  EXPECT_EQ(CountTo(p.get(), 50), "");
  const std::string error = CountTo(p.get(), 51);
  EXPECT_NE(error.find("op 'while'"), std::string::npos) << error;
  EXPECT_NE(error.find("50 loop iterations"), std::string::npos) << error;
  EXPECT_NE(error.find("SetMaxLoopIterations"), std::string::npos) << error;
  // The count is per run: the next run starts from zero.
  EXPECT_EQ(CountTo(p.get(), 40), "");
  EXPECT_EQ(CountTo(p.get(), 40), "");
  // A predictor's first run (which may go to the generic kernels) stops at
  // the limit too. The loop writes its input `i` on a copy: the caller's
  // input keeps its value.
  auto fresh = CreatePredictor(config);
  EXPECT_NE(CountTo(fresh.get(), 51).find("50 loop iterations"),
            std::string::npos);
  EXPECT_EQ(fresh->GetInputHandle("i")->data<int64_t>()[0], 0);
  // The default takes a loop of thousands.
  Config by_default;
  by_default.SetModelBuffer(program.data(), program.size(), nullptr, 0);
  auto q = CreatePredictor(by_default);
  EXPECT_EQ(CountTo(q.get(), 5000), "");
}

TEST(MemoryLimits, DefaultsAreFractionsOfPhysicalMemory) {
  Config config(testing::DemoModelDir());
  EXPECT_GT(config.max_tensor_bytes(), size_t{64} << 20);
  EXPECT_EQ(config.max_run_bytes(), 2 * config.max_tensor_bytes());
  config.SetMemoryLimits(1000, 5000);
  EXPECT_EQ(config.max_tensor_bytes(), 1000u);
  EXPECT_EQ(config.max_run_bytes(), 5000u);
}

TEST(MemoryLimits, OneTensorPastTheLimitNamesOpAndShape) {
  for (bool plans : {true, false}) {
    Config config(testing::DemoModelDir());
    config.EnableMemoryOptim(plans);
    // The input (1x3x64x64 floats, 48 KB) fits; the first conv's output
    // (more channels at the same size) does not.
    config.SetMemoryLimits(64 << 10, 0);
    auto p = CreatePredictor(config);
    Feed(p.get(), {1, 3, 64, 64});
    const std::string error = RunError(p.get());
    ASSERT_FALSE(error.empty()) << "ran";
    EXPECT_NE(error.find("op '"), std::string::npos) << error;
    EXPECT_NE(error.find("tensor float32[1, "), std::string::npos) << error;
    EXPECT_NE(error.find("limit for one tensor"), std::string::npos) << error;
    // Smaller inputs still run on the same predictor.
    Feed(p.get(), {1, 3, 8, 8});
    EXPECT_NO_THROW(p->Run());
  }
}

TEST(MemoryLimits, ARunPastItsLimitFailsAndTheNextRunWorks) {
  Config config(testing::DemoModelDir());
  config.SetMemoryLimits(0, 256 << 10);
  auto p = CreatePredictor(config);
  Feed(p.get(), {4, 3, 64, 64});
  const std::string error = RunError(p.get());
  ASSERT_FALSE(error.empty()) << "ran";
  EXPECT_NE(error.find("limit for a run's memory"), std::string::npos) << error;
  Feed(p.get(), {1, 3, 8, 8});
  EXPECT_NO_THROW(p->Run());
}

// A program that writes a weight gets a copy of it in each run, counted in
// the run's limits like its other tensors; past them the error names the
// weight and its writer.
TEST(MemoryLimits, ARunsCopyOfAWrittenWeightIsUnderTheLimits) {
  testing::ScratchDir dir("written_weight_limits");
  const std::string prefix = dir.path() + "/model";
  const int64_t kWidth = 32768;  // 128 KB of floats
  {
    framework::ProgramBuilder b;
    auto x = b.AddInput("x", framework::DataType::kFloat32, {-1, 1});
    framework::Tensor bias;
    bias.Resize({kWidth});
    float* values = bias.mutable_data<float>(platform::CPUPlace{});
    for (int64_t i = 0; i < kWidth; ++i) values[i] = 1.0f;
    b.AddParameter("b", bias);
    b.AddOp("scale", {{"X", {"b"}}}, {{"Out", {"b"}}}, {{"scale", 2.0f}});
    auto y = b.AddVar("y");
    b.AddOp("elementwise_add", {{"X", {x}}, {"Y", {"b"}}}, {{"Out", {y}}},
            {{"axis", -1}});
    b.AddOutput(y);
    b.Save(prefix);
  }
  Config config(prefix + ".pdmodel", prefix + ".pdiparams");
  config.SetMemoryLimits(64 << 10, 0);
  std::string error;
  try {
    auto p = CreatePredictor(config);  // its warm-up may run it already
    Feed(p.get(), {1, 1});  // the copy comes before any op
    p->Run();
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), ErrorCode::kResourceExhausted) << e.what();
    error = e.what();
  }
  ASSERT_FALSE(error.empty()) << "ran";
  EXPECT_NE(error.find("the run's copy of weight 'b', which block 0, op #"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("(scale), output Out writes"), std::string::npos)
      << error;
}

// The smallest limit, in 4 KB steps up to 64 MB, for which `passes` holds
// (64 MB when none does).
size_t SmallestLimit(const std::function<bool(size_t)>& passes) {
  size_t low = 0, high = size_t{64} << 20;
  while (high - low > 4096) {
    const size_t mid = (low + high) / 2;
    (passes(mid) ? high : low) = mid;
  }
  return high;
}

// Whether a fresh predictor's first run of `shape` passes `limits`
// (tensor bytes, run bytes).
bool FirstRunPasses(std::pair<size_t, size_t> limits,
                    const std::vector<int64_t>& shape) {
  Config config(testing::DemoModelDir());
  config.SetMemoryLimits(limits.first, limits.second);
  auto p = CreatePredictor(config);
  Feed(p.get(), shape);
  return RunError(p.get()).empty();
}

// A shape that passes the limits on its first run passes them on every
// run after, whatever shapes ran before: the arena a replay's tensors lie
// in is no one tensor, its headroom is no run's memory, and the arenas of
// other shapes' plans are not this run's. (Counted, the second run of the
// shape failed at the smallest limits its first passed, and after a
// smaller shape's runs its first did too.)
TEST(MemoryLimits, AShapeThatRunsOnceRunsAgainWhateverRanBefore) {
  const std::vector<int64_t> shape = {16, 3, 32, 32};
  const std::vector<int64_t> smaller = {8, 3, 32, 32};
  for (bool per_tensor : {true, false}) {
    auto limits = [per_tensor](size_t bytes) {
      return per_tensor ? std::make_pair(bytes, size_t{0})
                        : std::make_pair(size_t{0}, bytes);
    };
    // The smallest limit that the shape's first run passes.
    ASSERT_TRUE(FirstRunPasses(limits(size_t{64} << 20), shape));
    const size_t high = SmallestLimit(
        [&](size_t bytes) { return FirstRunPasses(limits(bytes), shape); });
    SCOPED_TRACE((per_tensor ? "tensor limit " : "run limit ") +
                 std::to_string(high));
    Config config(testing::DemoModelDir());
    config.SetMemoryLimits(limits(high).first, limits(high).second);
    auto p = CreatePredictor(config);
    for (int run = 0; run < 3; ++run) {
      Feed(p.get(), shape);
      EXPECT_EQ(RunError(p.get()), "") << "run " << run;
    }
    auto q = CreatePredictor(config);
    for (int run = 0; run < 2; ++run) {
      Feed(q.get(), smaller);
      EXPECT_EQ(RunError(q.get()), "") << "smaller, run " << run;
    }
    for (int run = 0; run < 2; ++run) {
      Feed(q.get(), shape);
      EXPECT_EQ(RunError(q.get()), "") << "after the smaller, run " << run;
    }
  }
}

// A run's charge does not depend on the shapes that ran before it, run
// once or not replayed at all: the tensors an earlier run left (outputs,
// tensors written in place), counted as held, had made a first run of a
// shape fail after another shape's run at the limit it passed alone (and
// with memory optim off, every run kept the last one's tensors).
TEST(MemoryLimits, ARunPassesTheLimitItPassesAloneAfterAnyOtherShape) {
  const std::vector<int64_t> shape = {16, 3, 32, 32};
  // Two threads: small runs go to the one-thread clone, whose own outputs
  // list had kept the run before's outputs.
  for (auto [memory_optim, threads] :
       {std::make_pair(true, 1), std::make_pair(false, 1),
        std::make_pair(true, 2)}) {
    auto passes = [memory_optim = memory_optim, threads = threads, &shape](
                      size_t run_bytes, const std::vector<int64_t>& before) {
      Config config(testing::DemoModelDir());
      config.EnableMemoryOptim(memory_optim);
      config.SetCpuThreads(threads);
      config.SetMemoryLimits(0, run_bytes);
      auto p = CreatePredictor(config);
      if (!before.empty()) {
        Feed(p.get(), before);
        // A larger shape fails the limit, part way through.
        const std::string error = RunError(p.get());
        EXPECT_EQ(error.empty(), before[0] <= shape[0])
            << "the shape before: " << error;
      }
      Feed(p.get(), shape);
      return RunError(p.get()).empty();
    };
    const size_t high =
        SmallestLimit([&](size_t bytes) { return passes(bytes, {}); });
    SCOPED_TRACE("memory optim " + std::string(memory_optim ? "on" : "off") +
                 ", " + std::to_string(threads) + " thread(s), run limit " +
                 std::to_string(high));
    for (const auto& before :
         std::vector<std::vector<int64_t>>{{8, 3, 32, 32},
                                           {12, 3, 32, 32},
                                           {1, 3, 32, 32},
                                           {20, 3, 32, 32},
                                           {64, 3, 32, 32}}) {
      EXPECT_TRUE(passes(high, before)) << "after batch " << before[0];
    }
  }
}

// A run of new shapes is charged all its tensors, also where the last
// plan's arena could hold them: written there in place, they were free,
// and a run passed the limit that it fails on a fresh predictor (then its
// plan asked for that much). Two chains, on inputs a and b: after shapes
// with a large and b small ran (and replayed), a and b both large must
// fail the limit that a fresh predictor fails them at.
TEST(MemoryLimits, ARunOfNewShapesIsChargedWhatItWritesInAnArena) {
  testing::ScratchDir dir("two_chains_limits");
  const std::string prefix = dir.path() + "/model";
  {
    framework::ProgramBuilder b;
    for (const std::string name : {"a", "b"}) {
      auto x = b.AddInput(name, framework::DataType::kFloat32, {-1, -1});
      auto r = b.AddVar(name + "_relu");
      b.AddOp("relu", {{"X", {x}}}, {{"Out", {r}}});
      auto y = b.AddVar(name + "_out");
      b.AddOp("elementwise_add", {{"X", {r}}, {"Y", {x}}}, {{"Out", {y}}},
              {{"axis", -1}});
      b.AddOutput(y);
    }
    b.Save(prefix);
  }
  auto run = [&prefix](size_t run_bytes, Predictor* reuse,
                       std::vector<int64_t> a, std::vector<int64_t> b) {
    std::unique_ptr<Predictor> fresh;
    if (reuse == nullptr) {
      Config config(prefix + ".pdmodel", prefix + ".pdiparams");
      config.SetMemoryLimits(0, run_bytes);
      fresh = CreatePredictor(config);
      reuse = fresh.get();
    }
    for (const auto& [name, shape] :
         {std::make_pair("a", a), std::make_pair("b", b)}) {
      auto in = reuse->GetInputHandle(name);
      in->Reshape(shape);
      float* data = in->mutable_data<float>();
      for (int64_t i = 0; i < shape[0] * shape[1]; ++i) data[i] = 1.0f;
    }
    return RunError(reuse).empty();
  };
  const std::vector<int64_t> large = {64, 1024}, small = {1, 1024};
  // The smallest run limit that a large a and small b pass.
  const size_t high = SmallestLimit(
      [&](size_t bytes) { return run(bytes, nullptr, large, small); });
  ASSERT_FALSE(run(high, nullptr, large, large))
      << "a and b both large pass " << high << " bytes";
  Config config(prefix + ".pdmodel", prefix + ".pdiparams");
  config.SetMemoryLimits(0, high);
  auto p = CreatePredictor(config);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(run(high, p.get(), large, small)) << "run " << i;
  }
  EXPECT_FALSE(run(high, p.get(), large, large))
      << "passed " << high << " bytes after a plan's arena held a's chain";
}

TEST(MemoryLimits, HugeInputIsRefusedBeforeAllocating) {
  Config config(testing::DemoModelDir());
  auto p = CreatePredictor(config);
  auto in = p->GetInputHandle(p->GetInputNames()[0]);
  in->Reshape({1 << 20, 3, 1 << 20, 1 << 10});
  try {
    in->mutable_data<float>();
    FAIL() << "allocated";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), ErrorCode::kResourceExhausted) << e.what();
    EXPECT_NE(std::string(e.what()).find("limit for one tensor"),
              std::string::npos)
        << e.what();
  }
  in->Reshape({INT64_MAX, 4});  // element count overflows
  EXPECT_THROW(in->mutable_data<float>(), Exception);
}

}  // namespace
}  // namespace paddle_lite
