// ByteBudget: the bound on the JSON of infer requests decoded at once
// (--max-json-decoding-mb). A request whose JSON does not fit beside the
// others' is answered 503 at once; this checks that decision without the
// timing a test over HTTP would depend on.
#include "serve/byte_budget.h"

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>
#include <utility>
#include <vector>

namespace pdlite {
namespace serve {
namespace {

TEST(ByteBudget, TakesWhatFitsAndRefusesTheRest) {
  ByteBudget budget(1000);
  ByteBudget::Lease a = budget.TryTake(900);
  ASSERT_TRUE(a);
  EXPECT_EQ(budget.held(), 900u);
  // Does not fit beside the 900 held: refused, and holds nothing.
  ByteBudget::Lease b = budget.TryTake(101);
  EXPECT_FALSE(b);
  EXPECT_EQ(budget.held(), 900u);
  // Exactly what is left fits.
  ByteBudget::Lease c = budget.TryTake(100);
  EXPECT_TRUE(c);
  EXPECT_EQ(budget.held(), 1000u);
  // Zero bytes always fit, even when all is held.
  EXPECT_TRUE(budget.TryTake(0));
  EXPECT_FALSE(budget.TryTake(1));
}

TEST(ByteBudget, ALeaseGivesBackWhenItEnds) {
  ByteBudget budget(1000);
  {
    ByteBudget::Lease a = budget.TryTake(1000);
    ASSERT_TRUE(a);
    EXPECT_FALSE(budget.TryTake(1));
    // Moved, it is given back once, by its last owner.
    ByteBudget::Lease moved(std::move(a));
    EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): checks the move
    EXPECT_TRUE(moved);
    EXPECT_EQ(budget.held(), 1000u);
  }
  EXPECT_EQ(budget.held(), 0u);
  EXPECT_TRUE(budget.TryTake(1000));
}

TEST(ByteBudget, MoreThanTheLimitIsNeverTaken) {
  ByteBudget budget(1000);
  EXPECT_FALSE(budget.TryTake(1001));
  EXPECT_FALSE(budget.TryTake(static_cast<size_t>(-1)));
  EXPECT_EQ(budget.held(), 0u);
  ByteBudget none(0);
  EXPECT_TRUE(none.TryTake(0));
  EXPECT_FALSE(none.TryTake(1));
}

// Threads take and give back at once: what is held never passes the limit,
// every take that fits beside nothing is possible, and all is given back.
TEST(ByteBudget, HoldsNoMoreThanTheLimitUnderConcurrency) {
  ByteBudget budget(10000);
  std::atomic<size_t> most_held{0};
  std::atomic<int> taken{0}, refused{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 random(t);
      std::uniform_int_distribution<size_t> size(1, 4000);
      for (int i = 0; i < 20000; ++i) {
        ByteBudget::Lease lease = budget.TryTake(size(random));
        const size_t held = budget.held();
        size_t seen = most_held.load();
        while (held > seen && !most_held.compare_exchange_weak(seen, held)) {
        }
        (lease ? taken : refused).fetch_add(1);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_LE(most_held.load(), 10000u);
  EXPECT_GT(taken.load(), 0);
  EXPECT_EQ(taken.load() + refused.load(), 8 * 20000);
  EXPECT_EQ(budget.held(), 0u);
}

}  // namespace
}  // namespace serve
}  // namespace pdlite
