// The bounded cache behind the oneDNN kernels' primitives and weights
// (kernels/cpu/mkldnn/lru_cache.h): it never holds more than its capacity
// and evicts the entry used longest ago. (Here because unittests/ has no
// binary for kernels/ yet.)
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
  LruCache cache(2);
  cache.Insert("a", Value(1));
  cache.Insert("b", Value(2));
  ASSERT_NE(cache.Find("a"), nullptr);  // "b" is now the oldest
  cache.Insert("c", Value(3));
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.Find("b"), nullptr);
  EXPECT_EQ(Read(cache.Find("a")), 1);
  EXPECT_EQ(Read(cache.Find("c")), 3);
}

TEST(MkldnnLruCache, ReplacingKeepsOneEntry) {
  LruCache cache(2);
  cache.Insert("a", Value(1));
  cache.Insert("a", Value(5));
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(Read(cache.Find("a")), 5);
}

TEST(MkldnnLruCache, StaysBoundedUnderManyKeys) {
  LruCache cache(16);
  std::shared_ptr<void> held = Value(-1);
  cache.Insert("held", held);
  for (int i = 0; i < 1000; ++i) cache.Insert(std::to_string(i), Value(i));
  EXPECT_EQ(cache.size(), 16u);
  EXPECT_EQ(cache.Find("held"), nullptr);
  EXPECT_EQ(Read(held), -1);  // a caller's reference outlives eviction
  EXPECT_EQ(Read(cache.Find("999")), 999);
  EXPECT_EQ(cache.Find("983"), nullptr);
}

}  // namespace
}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
