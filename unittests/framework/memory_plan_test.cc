#include "framework/memory_plan.h"

#include "gtest/gtest.h"

namespace paddle_lite {
namespace framework {
namespace {

bool Overlap(const BufferLifetime& a, size_t oa, const BufferLifetime& b,
             size_t ob) {
  bool time = !(a.last_op < b.first_op || b.last_op < a.first_op);
  bool space = oa < ob + b.bytes && ob < oa + a.bytes;
  return time && space;
}

TEST(MemoryPlan, BuffersNeverAliveTogetherShareBytes) {
  // A chain: each buffer is read only by the next op.
  std::vector<BufferLifetime> chain;
  for (int i = 0; i < 10; ++i) chain.push_back({1000, i, i + 1});
  auto plan = PlanMemory(chain);
  // Two buffers alive at once at most: the arena holds two, not ten.
  EXPECT_EQ(plan.arena_bytes, 2 * 1024u);
  EXPECT_EQ(plan.total_bytes, 10 * 1024u);
  for (size_t i = 0; i < chain.size(); ++i) {
    EXPECT_EQ(plan.offsets[i] % 64, 0u);
    for (size_t j = i + 1; j < chain.size(); ++j) {
      EXPECT_FALSE(Overlap(chain[i], plan.offsets[i], chain[j],
                           plan.offsets[j]))
          << i << " and " << j;
    }
  }
}

TEST(MemoryPlan, LiveTogetherNeverOverlap) {
  std::vector<BufferLifetime> bufs = {
      {100, 0, 9}, {5000, 1, 3}, {64, 2, 2}, {3000, 4, 8}, {7, 5, 6},
      {0, 3, 3},   {4096, 0, 1}, {128, 7, 9}};
  auto plan = PlanMemory(bufs);
  for (size_t i = 0; i < bufs.size(); ++i) {
    EXPECT_LE(plan.offsets[i] + bufs[i].bytes, plan.arena_bytes);
    for (size_t j = i + 1; j < bufs.size(); ++j) {
      EXPECT_FALSE(Overlap(bufs[i], plan.offsets[i], bufs[j], plan.offsets[j]))
          << i << " and " << j;
    }
  }
  EXPECT_LT(plan.arena_bytes, plan.total_bytes);
}

TEST(MemoryPlan, Empty) {
  auto plan = PlanMemory({});
  EXPECT_EQ(plan.arena_bytes, 0u);
  EXPECT_TRUE(plan.offsets.empty());
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
