// Shapes whose specialised kernels are not made, run on the generic ones
// (Config::EnableGenericKernels, framework/first_sight_policy.h).
#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "paddle_lite/paddle_lite.h"
#include "platform/cpu_isa.h"
#include "unittests/test_utils/loop_model.h"
#include "unittests/test_utils/predictor_runs.h"

namespace paddle_lite {
namespace {

using testing::RunFilled;

std::string DemoModel() {
  return std::string(PDLITE_SOURCE_DIR) + "/models/demo_convnet";
}

Config WithoutGenericKernels(const std::string& model) {
  Config config(model);
  config.EnableGenericKernels(false);
  return config;
}

// Why a small input's first runs would not go to the generic kernels here
// (empty when they do).
std::string WhyNotFirstRunsGeneric() {
  const char* env = std::getenv("PDLITE_GENERIC_KERNELS");
  if (env != nullptr && std::string(env) == "0") return "off here";
  if (platform::WidestCpuIsa() == platform::CpuIsa::kBaseline) {
    return "the generic GEMM needs a first call here (no AVX2)";
  }
  return "";
}

// The OCR direction classifier over a stream of widths, not warmed up at
// load: the generic kernels take its first run, and new widths when the
// policy gives them theirs; every result agrees with a predictor that
// never uses them, and the budget holds with both kinds' caches in it.
TEST(GenericKernels, TakeNewShapesOfASmallModelAndKeepResults) {
  const std::string dir =
      std::string(PDLITE_SHARED_DIR) + "/models/ppocr_cls_mobile_v2";
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) GTEST_SKIP() << dir << " is not there";
  const char* env = std::getenv("PDLITE_GENERIC_KERNELS");
  const bool off = env != nullptr && std::string(env) == "0";
  const size_t budget = size_t{48} << 20;
  Config generic(dir);
  generic.SetCacheBudget(budget);
  generic.EnableWarmup(false);
  Config specialised(dir);
  specialised.EnableGenericKernels(false);
  auto a = CreatePredictor(generic);
  auto b = CreatePredictor(specialised);
  int generic_runs = 0;
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::seconds(20);
  int64_t width = 64;
  for (int run = 0; run < 40 || (generic_runs == 0 && !off &&
                                 std::chrono::steady_clock::now() < until);
       ++run) {
    // New widths, and every third run one seen before.
    if (run % 3 != 2) width = width >= 1024 ? 96 : width + 32;
    const std::vector<int64_t> shape = {
        1, 3, 48, run % 3 == 2 ? 64 + 32 * (run % 5) : width};
    const float v = 0.02f * static_cast<float>(run % 7 + 1);
    auto got = RunFilled(a.get(), shape, v);
    auto want = RunFilled(b.get(), shape, v);
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k) {
      ASSERT_NEAR(got[k], want[k], 1e-4f + 1e-4f * std::abs(want[k]))
          << "run " << run << " width " << shape[3] << " element " << k;
    }
    RunStats stats = a->last_run_stats();
    if (stats.ran_generic) ++generic_runs;
    size_t total = 0;
    for (auto& kv : stats.cache_bytes) total += kv.second;
    EXPECT_LE(total, std::max(budget, stats.cache_bytes["mkldnn.scratch"]))
        << "run " << run;
    EXPECT_FALSE(b->last_run_stats().ran_generic);
  }
  if (off) {
    EXPECT_EQ(generic_runs, 0);
  } else {
    EXPECT_GT(generic_runs, 0);
  }
}

// Off, no run goes to them.
TEST(GenericKernels, OffKeepsEveryRunOnThePreferredKernels) {
  Config config(std::string(PDLITE_SOURCE_DIR) + "/models/demo_convnet");
  config.EnableGenericKernels(false);
  auto p = CreatePredictor(config);
  for (int64_t size = 16; size < 64; size += 4) {
    RunFilled(p.get(), {1, 3, size, size}, 0.1f);
    EXPECT_FALSE(p->last_run_stats().ran_generic) << size;
  }
}

// Without a warm-up at load, a predictor's first run of a small input
// goes to the generic kernels (nothing to make); its second runs
// specialised, paying the one-off work (weights packed, oneDNN's first
// use), and later sights replay it made; every result agrees with a
// predictor that never uses them. A large first input runs specialised
// from the first run, as before.
TEST(GenericKernels, FirstRunsOfASmallInputThenTheSpecialisedKernels) {
  const std::string skip = WhyNotFirstRunsGeneric();
  if (!skip.empty()) GTEST_SKIP() << skip;
  Config config(DemoModel());
  config.EnableWarmup(false);
  auto p = CreatePredictor(config);
  auto q = CreatePredictor(WithoutGenericKernels(DemoModel()));
  const std::vector<bool> want = {true, false, false, false, false};
  for (size_t run = 0; run < want.size(); ++run) {
    auto got = RunFilled(p.get(), {1, 3, 32, 32}, 0.1f);
    auto ref = RunFilled(q.get(), {1, 3, 32, 32}, 0.1f);
    EXPECT_EQ(p->last_run_stats().ran_generic, want[run]) << "run " << run;
    ASSERT_EQ(got.size(), ref.size());
    for (size_t k = 0; k < got.size(); ++k) {
      EXPECT_NEAR(got[k], ref[k], 1e-5f + 1e-5f * std::abs(ref[k]))
          << "run " << run << " element " << k;
    }
  }
  EXPECT_TRUE(p->last_run_stats().replayed);
  auto large = CreatePredictor(config);
  RunFilled(large.get(), {1, 3, 320, 320}, 0.1f);  // 1.2 MB
  EXPECT_FALSE(large->last_run_stats().ran_generic);
}

// A program with an op that writes a fed variable (here a while loop's
// counter, `i`) never runs on the generic kernels: the feeds share the
// caller's buffers, so a generic run that failed part way and was tried
// again on the specialised kernels would read inputs it had changed.
TEST(GenericKernels, AProgramThatWritesAnInputNeverRunsThere) {
  const std::string skip = WhyNotFirstRunsGeneric();
  if (!skip.empty()) GTEST_SKIP() << skip;
  const std::string program = testing::CountingLoopProgram();
  Config config;
  config.SetModelBuffer(program.data(), program.size(), nullptr, 0);
  config.EnableWarmup(false);
  auto p = CreatePredictor(config);
  for (int run = 0; run < 3; ++run) {
    for (const char* name : {"i", "n"}) {
      auto in = p->GetInputHandle(name);
      in->Reshape({1});
      in->mutable_data<int64_t>()[0] = std::string(name) == "n" ? 7 : 0;
    }
    p->Run();
    EXPECT_FALSE(p->last_run_stats().ran_generic) << "run " << run;
    EXPECT_EQ(p->GetOutputHandle("i")->data<int64_t>()[0], 7);
  }
}

// A stream of many shapes after a generic first run (no warm-up at load):
// the next run goes to the specialised kernels, and from then on each new
// shape is routed by the policy's measurements; a shape that has run on
// the specialised kernels stays on them (made), and one the policy gave to
// the generic kernels for good stays there. Results agree with a
// predictor that never uses them.
TEST(GenericKernels, AfterTheFirstRunEachShapeKeepsItsKernels) {
  const std::string skip = WhyNotFirstRunsGeneric();
  if (!skip.empty()) GTEST_SKIP() << skip;
  Config unwarmed(DemoModel());
  unwarmed.EnableWarmup(false);
  auto p = CreatePredictor(unwarmed);
  auto q = CreatePredictor(WithoutGenericKernels(DemoModel()));
  auto check = [&](int64_t size, const std::string& where) {
    auto got = RunFilled(p.get(), {1, 3, size, size}, 0.1f);
    auto ref = RunFilled(q.get(), {1, 3, size, size}, 0.1f);
    ASSERT_EQ(got.size(), ref.size()) << where;
    for (size_t k = 0; k < got.size(); ++k) {
      ASSERT_NEAR(got[k], ref[k], 1e-5f + 1e-5f * std::abs(ref[k]))
          << where << " element " << k;
    }
  };
  std::map<int64_t, bool> generic_at;  // a shape's route in pass 2
  int run = 0;
  for (int pass = 0; pass < 4; ++pass) {
    for (int64_t size = 16; size < 64; size += 4, ++run) {
      const std::string where =
          "pass " + std::to_string(pass) + " size " + std::to_string(size);
      check(size, where);
      const bool generic = p->last_run_stats().ran_generic;
      if (run == 0) {
        EXPECT_TRUE(generic) << where;
      } else if (run == 1) {
        EXPECT_FALSE(generic) << where;
      }
      // Pass 2 on: each shape's route is settled (made by its second
      // sight, or the generic kernels' for good).
      if (pass == 2) generic_at[size] = generic;
      if (pass == 3) {
        EXPECT_EQ(generic, generic_at[size]) << where;
      }
    }
  }
}

size_t CachedBytes(const Predictor& p) {
  size_t bytes = 0;
  for (const auto& kv : p.last_run_stats().cache_bytes) bytes += kv.second;
  return bytes;
}

bool WarmupOffHere() {
  const char* env = std::getenv("PDLITE_WARMUP");
  return env != nullptr && std::string(env) == "0";
}

// A small model runs once at load on zeros of its declared input shapes
// (Config::EnableWarmup): its weights are packed before the first run,
// which goes to the specialised kernels like every later run; nothing
// else shows: the inputs are unset, the declared shape's first real run
// records its plan as any shape's does, results match an unwarmed
// predictor's, and a clone's first run takes the same kernels.
TEST(Warmup, SmallModelRunsOnceAtLoadAndShowsNothingElse) {
  if (WarmupOffHere()) GTEST_SKIP() << "PDLITE_WARMUP=0";
  auto warm = CreatePredictor(Config(DemoModel()));
  Config cold_config = WithoutGenericKernels(DemoModel());
  cold_config.EnableWarmup(false);
  auto cold = CreatePredictor(cold_config);
  EXPECT_GT(CachedBytes(*warm), CachedBytes(*cold));
  try {
    warm->Run();
    ADD_FAILURE() << "Run() without inputs did not throw";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("has no data"), std::string::npos)
        << e.what();
  }
  for (int run = 0; run < 3; ++run) {
    auto got = RunFilled(warm.get(), {1, 3, 32, 32}, 0.1f);
    auto ref = RunFilled(cold.get(), {1, 3, 32, 32}, 0.1f);
    EXPECT_FALSE(warm->last_run_stats().ran_generic) << "run " << run;
    EXPECT_EQ(warm->last_run_stats().replayed, run > 0) << "run " << run;
    ASSERT_EQ(got.size(), ref.size());
    for (size_t k = 0; k < got.size(); ++k) {
      EXPECT_NEAR(got[k], ref[k], 1e-6f + 1e-6f * std::abs(ref[k]))
          << "run " << run << " element " << k;
    }
  }
  // A clone's first run takes the specialised kernels too (later new
  // shapes go where the policy's timings send them).
  auto clone = warm->Clone();
  auto from_clone = RunFilled(clone.get(), {1, 3, 48, 16}, 0.2f);
  EXPECT_FALSE(clone->last_run_stats().ran_generic);
  EXPECT_EQ(from_clone, RunFilled(cold.get(), {1, 3, 48, 16}, 0.2f));
}

// No warm-up where it would not help or cannot run: off, inputs whose
// declared shape is large (a detector's 1x3x960x960), or a model whose
// declared shape it cannot run (nothing fails at load; the first real
// run reports what is wrong with its inputs).
TEST(Warmup, OnlySmallDeclaredInputs) {
  Config off(DemoModel());
  off.EnableWarmup(false);
  EXPECT_EQ(CachedBytes(*CreatePredictor(off)), 0u);
  const std::string det =
      std::string(PDLITE_SHARED_DIR) + "/models/ppocr_det_ch_v3";
  struct stat st;
  if (stat(det.c_str(), &st) != 0) GTEST_SKIP() << det << " is not there";
  auto detector = CreatePredictor(Config(det));
  EXPECT_EQ(CachedBytes(*detector), 0u);
  // The classifier declares 1x3x32x100: warmed.
  const std::string cls =
      std::string(PDLITE_SHARED_DIR) + "/models/ppocr_cls_mobile_v2";
  if (!WarmupOffHere()) {
    EXPECT_GT(CachedBytes(*CreatePredictor(Config(cls))), 0u);
  }
}

}  // namespace
}  // namespace paddle_lite
