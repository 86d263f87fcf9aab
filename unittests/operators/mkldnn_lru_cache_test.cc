// The caches behind the oneDNN kernels' primitives and weights
// (kernels/cpu/mkldnn/lru_cache.h): entries count in the predictor's cache
// budget, which evicts the entry used longest ago, whichever cache holds
// it. (Here because unittests/ has no binary for kernels/ yet.)
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "kernels/cpu/mkldnn/lru_cache.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

std::shared_ptr<void> Value(int v) { return std::make_shared<int>(v); }
int Read(const std::shared_ptr<void>& p) { return *static_cast<int*>(p.get()); }

TEST(MkldnnLruCache, EvictsLeastRecentlyUsed) {
  platform::CacheBudget budget(200);
  LruCache cache("test", &budget);
  cache.Insert("a", Value(1), 100);
  cache.Insert("b", Value(2), 100);
  ASSERT_NE(cache.Find("a"), nullptr);  // "b" is now the oldest
  cache.Insert("c", Value(3), 100);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.Find("b"), nullptr);
  EXPECT_EQ(Read(cache.Find("a")), 1);
  EXPECT_EQ(Read(cache.Find("c")), 3);
  EXPECT_EQ(budget.used(), 200u);
  EXPECT_EQ(budget.evictions(), 1u);
}

TEST(MkldnnLruCache, ReplacingKeepsOneEntry) {
  platform::CacheBudget budget(1000);
  LruCache cache("test", &budget);
  cache.Insert("a", Value(1), 10);
  cache.Insert("a", Value(5), 30);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(Read(cache.Find("a")), 5);
  EXPECT_EQ(budget.used(), 30u);
}

TEST(MkldnnLruCache, StaysWithinTheBudgetUnderManyKeys) {
  platform::CacheBudget budget(16 * 64);
  LruCache cache("test", &budget);
  std::shared_ptr<void> held = Value(-1);
  cache.Insert("held", held, 64);
  for (int i = 0; i < 1000; ++i) cache.Insert(std::to_string(i), Value(i), 64);
  EXPECT_EQ(cache.size(), 16u);
  EXPECT_EQ(cache.bytes(), 16 * 64u);
  EXPECT_EQ(cache.Find("held"), nullptr);
  EXPECT_EQ(Read(held), -1);  // a caller's reference outlives eviction
  EXPECT_EQ(Read(cache.Find("999")), 999);
  EXPECT_EQ(cache.Find("983"), nullptr);
}

TEST(MkldnnLruCache, CachesShareOneBudget) {
  platform::CacheBudget budget(300);
  LruCache primitives("primitives", &budget);
  LruCache weights("weights", &budget);
  primitives.Insert("p1", Value(1), 100);
  weights.Insert("w1", Value(2), 100);
  primitives.Insert("p2", Value(3), 100);
  ASSERT_NE(primitives.Find("p1"), nullptr);  // w1 is the oldest now
  weights.Insert("w2", Value(4), 100);
  EXPECT_EQ(weights.Find("w1"), nullptr);
  EXPECT_NE(primitives.Find("p1"), nullptr);
  EXPECT_NE(primitives.Find("p2"), nullptr);
  auto by_cache = budget.UsedByCache();
  EXPECT_EQ(by_cache["primitives"], 200u);
  EXPECT_EQ(by_cache["weights"], 100u);
}

TEST(MkldnnLruCache, LeavesTheBudgetWhenDestroyed) {
  platform::CacheBudget budget(1000);
  {
    LruCache cache("test", &budget);
    cache.Insert("a", Value(1), 100);
    EXPECT_EQ(budget.used(), 100u);
  }
  EXPECT_EQ(budget.used(), 0u);
}

}  // namespace
}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
