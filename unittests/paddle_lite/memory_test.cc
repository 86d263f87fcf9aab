// Plans, replay and memory that stays flat run after run.
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "framework/npy.h"
#include "paddle_lite/paddle_lite.h"
#include "unittests/test_utils/model_paths.h"
#include "unittests/test_utils/op_tester.h"
#include "unittests/test_utils/sanitizers.h"

namespace paddle_lite {
namespace {

size_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

std::vector<float> RunOnce(Predictor* p,
                           const std::string& name,
                           const std::vector<int64_t>& shape,
                           float value) {
  auto in = p->GetInputHandle(name);
  in->Reshape(shape);
  int64_t n = 1;
  for (auto d : shape) n *= d;
  float* data = in->mutable_data<float>();
  for (int64_t i = 0; i < n; ++i) data[i] = value * ((i % 7) - 3);
  p->Run();
  auto out = p->GetOutputHandle(p->GetOutputNames()[0]);
  int64_t size = 0;
  const float* o = out->data<float>(&size);
  return std::vector<float>(o, o + size);
}

TEST(PlanReplay, SecondRunOfAShapeReplaysWithTheSameResults) {
  Config planned(testing::DemoModelDir());
  Config plain(testing::DemoModelDir());
  plain.EnableMemoryOptim(false);
  // Bit for bit only on the same kernels, and the replays are the
  // specialised kernels' plans.
  planned.EnableGenericKernels(false);
  plain.EnableGenericKernels(false);
  auto a = CreatePredictor(planned);
  auto b = CreatePredictor(plain);
  std::vector<std::vector<int64_t>> shapes = {{1, 3, 32, 32}, {2, 3, 32, 32},
                                              {1, 3, 32, 32}, {1, 3, 40, 24},
                                              {2, 3, 32, 32}, {1, 3, 40, 24}};
  for (size_t i = 0; i < shapes.size(); ++i) {
    float v = 0.1f * static_cast<float>(i + 1);
    auto got = RunOnce(a.get(), "x", shapes[i], v);
    auto want = RunOnce(b.get(), "x", shapes[i], v);
    EXPECT_EQ(got, want) << "run " << i;
    bool seen_before = i == 2 || i == 4 || i == 5;
    EXPECT_EQ(a->last_run_stats().replayed, seen_before) << "run " << i;
    EXPECT_FALSE(b->last_run_stats().replayed);
  }
  auto stats = a->last_run_stats();
  EXPECT_EQ(stats.plans_cached, 3u);
  EXPECT_GT(stats.arena_bytes, 0u);
  // Liveness reuse: the arena is smaller than the buffers side by side.
  EXPECT_LT(stats.arena_bytes, stats.unplanned_bytes);
}

// 1,000 runs alternating between two input shapes: resident memory after
// the first 100 runs and after all 1,000 differs by less than 1%.
#if defined(PDLITE_TEST_ASAN) || defined(PDLITE_TEST_TSAN)
constexpr bool kSanitized = true;  // their allocators hold freed memory
#else
constexpr bool kSanitized = false;
#endif

void CheckFlatMemory(const std::string& dir,
                     const std::string& input,
                     const std::vector<int64_t>& s1,
                     const std::vector<int64_t>& s2) {
  if (kSanitized) GTEST_SKIP() << "RSS means nothing under a sanitizer";
  Config config(dir);
  config.SetCpuThreads(2);
  auto p = CreatePredictor(config);
  size_t after_100 = 0;
  for (int run = 1; run <= 1000; ++run) {
    RunOnce(p.get(), input, run % 2 ? s1 : s2, 0.5f);
    if (run == 100) after_100 = ResidentBytes();
  }
  size_t after_1000 = ResidentBytes();
  double growth = (static_cast<double>(after_1000) - after_100) / after_100;
  EXPECT_LT(growth, 0.01) << "RSS " << after_100 << " -> " << after_1000;
  ::testing::Test::RecordProperty("rss_after_100", std::to_string(after_100));
  ::testing::Test::RecordProperty("rss_after_1000", std::to_string(after_1000));
}

// The arena is sized for the largest plan cached when it must grow: a
// stream of shapes replaces it once, not each time a larger shape comes
// back (each replacement is fresh pages to fault in).
TEST(PlanReplay, ArenaGrowsOnceToTheLargestCachedPlan) {
  // The arena is the specialised kernels' (a predictor's first runs of a
  // small input are the generic kernels').
  Config config(testing::DemoModelDir());
  config.EnableGenericKernels(false);
  auto p = CreatePredictor(config);
  const std::vector<std::vector<int64_t>> shapes = {
      {1, 3, 16, 16}, {1, 3, 48, 48}, {1, 3, 32, 32}};
  for (auto& shape : shapes) RunOnce(p.get(), "x", shape, 0.5f);  // record
  // The first replay, of the smallest shape, makes the arena.
  RunOnce(p.get(), "x", shapes[0], 0.5f);
  ASSERT_TRUE(p->last_run_stats().replayed);
  const size_t smallest_need = p->last_run_stats().arena_bytes;
  const size_t arena = p->last_run_stats().cache_bytes["arena"];
  size_t largest_need = 0;
  for (auto& shape : shapes) {
    RunOnce(p.get(), "x", shape, 0.5f);
    ASSERT_TRUE(p->last_run_stats().replayed);
    largest_need = std::max(largest_need, p->last_run_stats().arena_bytes);
    EXPECT_EQ(p->last_run_stats().cache_bytes["arena"], arena);
  }
  EXPECT_LT(smallest_need, largest_need);
  EXPECT_EQ(arena, largest_need);
}

TEST(Memory, FlatOverAlternatingShapesDemo) {
  CheckFlatMemory(testing::DemoModelDir(), "x", {1, 3, 32, 32}, {3, 3, 48, 40});
}

TEST(Memory, FlatOverAlternatingShapesRealModel) {
  std::string dir =
      std::string(PDLITE_SHARED_DIR) + "/models/ppocr_cls_mobile_v2";
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) GTEST_SKIP() << dir << " is not there";
  CheckFlatMemory(dir, "x", {1, 3, 48, 192}, {2, 3, 48, 160});
}

// glibc heap bytes in use (small blocks and mmapped ones).
size_t HeapBytesInUse() {
  const struct mallinfo2 heap = mallinfo2();
  return heap.uordblks + heap.hblkhd;
}

// An input's memory comes from the predictor's block pool, not glibc's
// heap: inputs change size with every shape, and freed through the heap
// they fragment it (RSS stepped up at random passes of a shape stream).
TEST(Memory, InputsComeFromThePredictorsPool) {
  auto p = CreatePredictor(Config(testing::DemoModelDir()));
  RunOnce(p.get(), "x", {1, 3, 32, 32}, 0.5f);
  for (int64_t side : {256, 320, 288}) {
    auto in = p->GetInputHandle("x");
    in->Reshape({2, 3, side, side});  // 1.5 to 2.3 MB
    const size_t before = HeapBytesInUse();
    float* data = in->mutable_data<float>();
    const size_t after = HeapBytesInUse();
    ASSERT_NE(data, nullptr);
    EXPECT_LT(after, before + (size_t{256} << 10))
        << "a 2x3x" << side << "x" << side << " input came from the heap";
    // Still a working input.
    std::fill(data, data + 2 * 3 * side * side, 0.25f);
    p->Run();
    int64_t size = 0;
    p->GetOutputHandle(p->GetOutputNames()[0])->data<float>(&size);
    EXPECT_GT(size, 0);
  }
}

// A stream of input shapes under a budget far too small for all of them:
// Every element of `got` within 1e-5 (absolute plus relative) of `want`.
void ExpectSameOutputs(const std::vector<float>& got,
                       const std::vector<float>& want,
                       int pass,
                       size_t shape) {
  ASSERT_EQ(got.size(), want.size()) << "pass " << pass << " shape " << shape;
  for (size_t k = 0; k < got.size(); ++k) {
    ASSERT_NEAR(got[k], want[k], 1e-5f + 1e-5f * std::abs(want[k]))
        << "pass " << pass << " shape " << shape << " element " << k;
  }
}

// after every run the caches hold at most the budget (what may not be
// evicted, scratch in use, aside), plans and primitives are evicted and
// rebuilt, and every result equals that of a predictor whose budget holds
// everything, and of one without plans.
void CheckBudgetHoldsOverAShapeStream(
    const std::string& dir,
    const std::string& input,
    const std::vector<std::vector<int64_t>>& shapes,
    size_t budget) {
  Config small(dir);
  small.SetCacheBudget(budget);
  Config large(dir);
  large.SetCacheBudget(size_t{1} << 30);
  Config unplanned(dir);
  unplanned.EnableMemoryOptim(false);
  // The specialised kernels' caches under test: every run on them.
  for (Config* c : {&small, &large, &unplanned}) c->EnableGenericKernels(false);
  auto a = CreatePredictor(small);
  auto b = CreatePredictor(large);
  auto c = CreatePredictor(unplanned);
  size_t most_plans = 0;
  for (int pass = 0; pass < 3; ++pass) {
    for (size_t i = 0; i < shapes.size(); ++i) {
      const float v = 0.05f * static_cast<float>(i + 1);
      auto got = RunOnce(a.get(), input, shapes[i], v);
      auto want = RunOnce(b.get(), input, shapes[i], v);
      auto plain = RunOnce(c.get(), input, shapes[i], v);
      ASSERT_NO_FATAL_FAILURE(ExpectSameOutputs(got, want, pass, i));
      ASSERT_NO_FATAL_FAILURE(ExpectSameOutputs(got, plain, pass, i));
      auto stats = a->last_run_stats();
      EXPECT_EQ(stats.cache_budget_bytes, budget);
      size_t total = 0;
      for (auto& kv : stats.cache_bytes) total += kv.second;
      // Never evicted: scratch a kernel or the executor may be using.
      const size_t pinned = stats.cache_bytes["mkldnn.scratch"] +
                            stats.cache_bytes["layout.scratch"];
      EXPECT_LE(total, std::max(budget, pinned))
          << "pass " << pass << " shape " << i;
      most_plans = std::max(most_plans, stats.plans_cached);
      // The large budget keeps every plan and primitive.
      EXPECT_EQ(b->last_run_stats().plans_cached,
                pass == 0 ? i + 1 : shapes.size());
    }
  }
  EXPECT_LT(most_plans, shapes.size()) << "the small budget evicted nothing";
  EXPECT_TRUE(b->last_run_stats().replayed);
}

std::vector<std::vector<int64_t>> ImageStream(int64_t channels,
                                              int64_t first_h,
                                              int count) {
  std::vector<std::vector<int64_t>> shapes;
  for (int i = 0; i < count; ++i) {
    shapes.push_back(
        {1 + i % 2, channels, first_h + 8 * (i % 4), first_h + 8 * (i / 4)});
  }
  return shapes;
}

TEST(CacheBudget, HoldsOverAShapeStreamDemo) {
  CheckBudgetHoldsOverAShapeStream(testing::DemoModelDir(), "x",
                                   ImageStream(3, 24, 12), size_t{512} << 10);
}

TEST(CacheBudget, HoldsOverAShapeStreamRealModel) {
  std::string dir =
      std::string(PDLITE_SHARED_DIR) + "/models/ppocr_cls_mobile_v2";
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) GTEST_SKIP() << dir << " is not there";
  std::vector<std::vector<int64_t>> shapes;
  for (int64_t w : {64, 96, 128, 160, 192, 224, 256, 320}) {
    shapes.push_back({1 + w % 3, 3, 48, w});
  }
  CheckBudgetHoldsOverAShapeStream(dir, "x", shapes, size_t{2} << 20);
}

// With new shapes' primitives made ahead by a clone (Config::
// EnableMakeAhead, on by default), every result equals that of a predictor
// making its own, shape after shape and pass after pass; the clone made
// some shapes where a core is left for it.
void CheckMakeAheadKeepsResults(
    const std::string& dir,
    const std::string& input,
    const std::vector<std::vector<int64_t>>& shapes) {
  Config ahead(dir);
  ahead.EnableMakeAhead(true);
  Config own(dir);
  own.EnableMakeAhead(false);
  // Made ahead, not run on the generic kernels.
  ahead.EnableGenericKernels(false);
  own.EnableGenericKernels(false);
  auto a = CreatePredictor(ahead);
  auto b = CreatePredictor(own);
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < shapes.size(); ++i) {
      const float v = 0.03f * static_cast<float>(i + 1);
      auto got = RunOnce(a.get(), input, shapes[i], v);
      auto want = RunOnce(b.get(), input, shapes[i], v);
      ASSERT_NO_FATAL_FAILURE(ExpectSameOutputs(got, want, pass, i));
    }
  }
  EXPECT_EQ(b->last_run_stats().shapes_made_ahead, 0u);
  const char* env = std::getenv("PDLITE_MAKE_AHEAD");
  const bool off = env != nullptr && std::string(env) == "0";
  if (off || std::thread::hardware_concurrency() < 2) {
    EXPECT_EQ(a->last_run_stats().shapes_made_ahead, 0u);
  } else {
    // The clone makes shapes on a thread of its own: on a busy machine (CI
    // runs two suites at once on two cores) it may not have finished one
    // by the last run. The count is read at each run.
    for (int waited_ms = 0;
         waited_ms < 10000 && a->last_run_stats().shapes_made_ahead == 0;
         waited_ms += 10) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      RunOnce(a.get(), input, shapes.back(), 0.03f);
    }
    EXPECT_GT(a->last_run_stats().shapes_made_ahead, 0u);
  }
}

TEST(MakeAhead, KeepsResultsOverAShapeStreamDemo) {
  CheckMakeAheadKeepsResults(testing::DemoModelDir(), "x",
                             ImageStream(3, 24, 12));
}

TEST(MakeAhead, KeepsResultsOverAShapeStreamRealModel) {
  std::string dir = std::string(PDLITE_SHARED_DIR) + "/models/ppocr_det_ch_v3";
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) GTEST_SKIP() << dir << " is not there";
  std::vector<std::vector<int64_t>> shapes;
  for (int64_t h : {96, 128, 160}) {
    for (int64_t w : {96, 160}) shapes.push_back({1, 3, h, w});
  }
  CheckMakeAheadKeepsResults(dir, "x", shapes);
}

// Shapes the clone finished by the time a run of `shape` returns, the run
// repeated (same shape, no new race) until it reports one or 10 s pass.
size_t MadeAheadAfterRuns(Predictor* p, const std::vector<int64_t>& shape) {
  RunOnce(p, "x", shape, 0.5f);
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (p->last_run_stats().shapes_made_ahead == 0 &&
         std::chrono::steady_clock::now() < until) {
    RunOnce(p, "x", shape, 0.5f);
  }
  return p->last_run_stats().shapes_made_ahead;
}

// A predictor's first shape is raced by the clone only when its inputs
// reach 1 MB: a small first run ends before the clone makes anything, so
// a fixed small shape must not pay for a clone.
TEST(MakeAhead, RacesTheFirstShapeOnlyWhenItIsLarge) {
  const char* env = std::getenv("PDLITE_MAKE_AHEAD");
  if ((env != nullptr && std::string(env) == "0") ||
      std::thread::hardware_concurrency() < 2) {
    GTEST_SKIP() << "make-ahead is off here";
  }
  Config config(testing::DemoModelDir());
  config.EnableMakeAhead(true);
  config.EnableGenericKernels(false);
  {
    auto small = CreatePredictor(config);
    RunOnce(small.get(), "x", {1, 3, 64, 64}, 0.5f);
    for (int i = 0; i < 3; ++i) RunOnce(small.get(), "x", {1, 3, 64, 64}, 0.5f);
    EXPECT_EQ(small->last_run_stats().shapes_made_ahead, 0u);
  }
  auto large = CreatePredictor(config);  // 1x3x320x320: 1.2 MB
  EXPECT_EQ(MadeAheadAfterRuns(large.get(), {1, 3, 320, 320}), 1u);
}

}  // namespace
}  // namespace paddle_lite
