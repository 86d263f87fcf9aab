// The caches behind the oneDNN kernels' primitives and weights
// (kernels/cpu/mkldnn/lru_cache.h): entries count in the predictor's cache
// budget, which evicts the entry used longest ago, whichever cache holds
// it. (Here because unittests/ has no binary for kernels/ yet.)
#include <sys/resource.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "kernels/cpu/mkldnn/lru_cache.h"
#include "kernels/cpu/mkldnn/mkldnn_helper.h"
#include "platform/address_space.h"
#include "platform/errors.h"
#include "unittests/test_utils/sanitizers.h"

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

// oneDNN running out of memory while making weights or a primitive fails
// the call (ResourceExhausted) and is not remembered: the next call makes
// it. A configuration oneDNN rejects is remembered as null (the caller
// runs the PLAIN kernel). Packed filters out of memory came back null, and
// our conv loops read through it (SIGSEGV under ulimit -v).
TEST(MkldnnContext, OutOfMemoryIsAnErrorNotARejection) {
  platform::CacheBudget budget(size_t{1} << 20);
  MkldnnContext mk(&budget);
  auto out_of_memory = []() -> std::shared_ptr<dnnl::memory> {
    throw dnnl::error(dnnl_out_of_memory, "could not allocate");
  };
  try {
    mk.Weights("w", out_of_memory);
    ADD_FAILURE() << "no exception";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), ErrorCode::kResourceExhausted) << e.what();
    EXPECT_NE(std::string(e.what()).find("oneDNN ran out of memory"),
              std::string::npos)
        << e.what();
  }
  auto made = mk.Weights("w", [&] {
    return std::make_shared<dnnl::memory>(
        dnnl::memory::desc({4}, dnnl::memory::data_type::f32,
                           dnnl::memory::format_tag::a),
        mk.engine());
  });
  ASSERT_NE(made, nullptr);
  auto rejected =
      mk.Primitive<dnnl::memory>("p", []() -> std::shared_ptr<dnnl::memory> {
        throw dnnl::error(dnnl_unimplemented, "no implementation");
      });
  EXPECT_EQ(rejected, nullptr);
  // Remembered: not made again.
  EXPECT_EQ(mk.Primitive<dnnl::memory>("p",
                                       []() -> std::shared_ptr<dnnl::memory> {
                                         ADD_FAILURE() << "made again";
                                         return nullptr;
                                       }),
            nullptr);
}

// With less address space left than making a primitive needs (under
// ulimit -v), oneDNN is not asked to make one: it crashed writing the
// primitive's code (SIGSEGV in dnnl_primitive_create) where the address
// space ran out. The run fails with ResourceExhausted instead.
TEST(MkldnnContext, RefusesToMakeWithTheAddressSpaceNearlyUsedUp) {
#if defined(PDLITE_TEST_ASAN)
  GTEST_SKIP() << "AddressSanitizer's shadow needs an unlimited address space";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // In a child process: the limit stays there.
  auto make_under_a_limit = [] {
    platform::CacheBudget budget(size_t{1} << 20);
    MkldnnContext mk(&budget);
    rlimit limit;
    if (getrlimit(RLIMIT_AS, &limit) != 0) _exit(3);
    const size_t room = MkldnnContext::kMakingAddressSpaceBytes / 2;
    const size_t mapped = platform::AddressSpaceMapped();
    if (mapped == 0) _exit(4);
    limit.rlim_cur = room + mapped;
    if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(3);
    bool made = false;
    try {
      mk.Weights("w", [&]() -> std::shared_ptr<dnnl::memory> {
        made = true;
        return nullptr;
      });
    } catch (const Exception& e) {
      const bool refused =
          e.code() == ErrorCode::kResourceExhausted &&
          std::string(e.what()).find("address space is nearly used up") !=
              std::string::npos;
      _exit(refused && !made ? 0 : 1);
    }
    _exit(2);
  };
  EXPECT_EXIT(make_under_a_limit(), ::testing::ExitedWithCode(0), "");
#endif
}

}  // namespace
}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
