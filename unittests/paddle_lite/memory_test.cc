// Plans, replay and memory that stays flat run after run.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "framework/npy.h"
#include "paddle_lite/paddle_lite.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace {

const std::string kDemo =
    std::string(PDLITE_SOURCE_DIR) + "/models/demo_convnet";

size_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

std::vector<float> RunOnce(Predictor* p, const std::string& name,
                           const std::vector<int64_t>& shape, float value) {
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
  Config planned(kDemo);
  Config plain(kDemo);
  plain.EnableMemoryOptim(false);
  auto a = CreatePredictor(planned);
  auto b = CreatePredictor(plain);
  std::vector<std::vector<int64_t>> shapes = {
      {1, 3, 32, 32}, {2, 3, 32, 32}, {1, 3, 32, 32}, {1, 3, 40, 24},
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
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;  // their allocators hold freed memory
#else
constexpr bool kSanitized = false;
#endif

void CheckFlatMemory(const std::string& dir, const std::string& input,
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

TEST(Memory, FlatOverAlternatingShapesDemo) {
  CheckFlatMemory(kDemo, "x", {1, 3, 32, 32}, {3, 3, 48, 40});
}

TEST(Memory, FlatOverAlternatingShapesRealModel) {
  std::string dir =
      std::string(PDLITE_SHARED_DIR) + "/models/ppocr_cls_mobile_v2";
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) GTEST_SKIP() << dir << " is not there";
  CheckFlatMemory(dir, "x", {1, 3, 48, 192}, {2, 3, 48, 160});
}

}  // namespace
}  // namespace paddle_lite
