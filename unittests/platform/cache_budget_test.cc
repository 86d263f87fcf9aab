// One byte budget over several caches, and the host block pool counted in
// it.
#include "platform/cache_budget.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "platform/address_space.h"
#include "platform/host_block_pool.h"
#include "unittests/test_utils/sanitizers.h"

namespace paddle_lite {
namespace platform {
namespace {

TEST(CacheBudget, EvictsOldestAcrossCachesUntilItFits) {
  CacheBudget budget(250);
  std::vector<std::string> evicted;
  auto a = budget.Add("x", 100, [&] { evicted.push_back("a"); });
  budget.Add("y", 100, [&] { evicted.push_back("b"); });
  budget.Touch(a);  // b is the oldest now
  budget.Add("x", 100, [&] { evicted.push_back("c"); });
  EXPECT_EQ(evicted, std::vector<std::string>{"b"});
  EXPECT_EQ(budget.used(), 200u);
  EXPECT_EQ(budget.UsedByCache()["x"], 200u);
  EXPECT_EQ(budget.UsedByCache()["y"], 0u);
  EXPECT_EQ(budget.evictions(), 1u);
  // So executors can tell whose.
  EXPECT_EQ(budget.EvictionsBesides({"y"}), 0u);
  EXPECT_EQ(budget.EvictionsBesides({"x", "z"}), 1u);
}

TEST(CacheBudget, NeverEvictsTheNewEntryOrUnevictableOnes) {
  CacheBudget budget(100);
  int evictions = 0;
  budget.Add("pinned", 80, nullptr);
  auto big = budget.Add("x", 500, [&] { ++evictions; });
  EXPECT_EQ(evictions, 0);
  EXPECT_EQ(budget.used(), 580u);  // over, with nothing it may drop
  budget.Add("x", 10, [&] { ++evictions; });
  EXPECT_EQ(evictions, 1);  // the 500 went
  EXPECT_EQ(budget.used(), 90u);
  budget.Remove(big);  // already evicted: ignored
  EXPECT_EQ(budget.used(), 90u);
}

TEST(CacheBudget, ResizeCountsGrowthAndCanEvict) {
  CacheBudget budget(100);
  bool evicted = false;
  budget.Add("old", 50, [&] { evicted = true; });
  auto scratch = budget.Add("scratch", 10, nullptr);
  budget.Resize(scratch, 60);
  EXPECT_TRUE(evicted);
  EXPECT_EQ(budget.used(), 60u);
}

TEST(CacheBudget, EvictCallbackMayReenter) {
  CacheBudget budget(100);
  CacheBudget::EntryId second = 0;
  budget.Add("x", 60, [&] { budget.Remove(second); });
  second = budget.Add("x", 30, nullptr);
  budget.Add("x", 50, [] {});
  EXPECT_EQ(budget.used(), 50u);  // the 60 went, and its callback the 30
}

TEST(HostBlockPool, ReusesFreedBlocksAndCountsThem) {
  CacheBudget budget(size_t{64} << 20);
  auto* pool = HostBlockPool::Create(&budget);
  void* first = nullptr;
  {
    ScopedHostAllocator scoped(pool);
    AllocationPtr a = GetAllocator(CPUPlace{})->Allocate(1 << 20);
    first = a->ptr();
    static_cast<char*>(a->ptr())[(1 << 20) - 1] = 1;  // writable
  }
  EXPECT_EQ(pool->free_bytes(), size_t{1} << 20);  // its touched pages
  EXPECT_EQ(budget.UsedByCache()["host.pool"], pool->free_bytes());
  {
    ScopedHostAllocator scoped(pool);
    // A smaller request takes the same (resident) bytes.
    AllocationPtr b = GetAllocator(CPUPlace{})->Allocate((1 << 20) - 4096);
    EXPECT_EQ(b->ptr(), first);
    EXPECT_EQ(pool->free_bytes(), 4096u);
    // Two blocks side by side in one chunk, merged again when freed.
    AllocationPtr c = GetAllocator(CPUPlace{})->Allocate(3 << 20);
    EXPECT_EQ(pool->chunk_bytes(), HostBlockPool::kMinChunk);
    // Small requests are not pooled.
    AllocationPtr small = GetAllocator(CPUPlace{})->Allocate(100);
    EXPECT_NE(small->ptr(), nullptr);
  }
  // Outside the scope, the CPU allocator as usual.
  EXPECT_NE(GetAllocator(CPUPlace{}), pool);
  pool->Close();
  EXPECT_EQ(budget.used(), 0u);
}

// A run's blocks, freed, are one warm range: the arena its plan asks for
// next (as large as all of them) takes those pages, not fresh ones, even
// when the run made the pool grow several times.
TEST(HostBlockPool, FreedBlocksOfSeveralGrowthsMergeForOneLargeBlock) {
  constexpr size_t kMB = size_t{1} << 20;
  CacheBudget budget(256 * kMB);
  auto* pool = HostBlockPool::Create(&budget);
  {
    ScopedHostAllocator scoped(pool);
    void* first = nullptr;
    {
      std::vector<AllocationPtr> run;
      for (int i = 0; i < 10; ++i) {
        run.push_back(GetAllocator(CPUPlace{})->Allocate(4 * kMB));
        std::memset(run.back()->ptr(), 1, 4 * kMB);
      }
      first = run.front()->ptr();
      EXPECT_GT(pool->chunk_bytes(), HostBlockPool::kMinChunk);  // it grew
    }
    const size_t grown = pool->chunk_bytes();
    EXPECT_EQ(pool->free_bytes(), 40 * kMB);
    AllocationPtr arena = GetAllocator(CPUPlace{})->Allocate(40 * kMB);
    EXPECT_EQ(arena->ptr(), first);
    EXPECT_EQ(pool->chunk_bytes(), grown);
    EXPECT_EQ(pool->free_bytes(), 0u);  // all of it was warm
    static_cast<char*>(arena->ptr())[40 * kMB - 1] = 1;
  }
  pool->Close();
}

TEST(HostBlockPool, BlocksOutliveAClosedPool) {
  CacheBudget budget(size_t{64} << 20);
  auto* pool = HostBlockPool::Create(&budget);
  AllocationPtr kept, small;
  {
    ScopedHostAllocator scoped(pool);
    kept = GetAllocator(CPUPlace{})->Allocate(256 << 10);
    small = GetAllocator(CPUPlace{})->Allocate(64);
  }
  pool->Close();  // the pool lives until both come back
  static_cast<char*>(kept->ptr())[0] = 7;
  EXPECT_EQ(static_cast<char*>(kept->ptr())[0], 7);
  kept.reset();
  small.reset();  // frees the last block and the pool (ASan checks both)
  EXPECT_EQ(budget.used(), 0u);
}

TEST(HostBlockPool, BudgetEvictionReturnsFreeBlocks) {
  CacheBudget budget(size_t{4} << 20);
  auto* pool = HostBlockPool::Create(&budget);
  {
    ScopedHostAllocator scoped(pool);
    GetAllocator(CPUPlace{})->Allocate(512 << 10);
  }
  EXPECT_GT(pool->free_bytes(), 0u);
  budget.Add("other", size_t{4} << 20, [] {});  // needs all of it
  EXPECT_EQ(pool->free_bytes(), 0u);
  pool->Close();
}

// An arena's headroom (what no run writes yet) is not resident, even on
// pages a freed block had touched: the pool stops counting them as free
// when it gives them, and the budget counts only the arena's used part.
TEST(HostBlockPool, AnArenaOnWarmPagesHandsBackItsHeadroom) {
  CacheBudget budget(size_t{64} << 20);
  auto* pool = HostBlockPool::Create(&budget);
  constexpr size_t kMB = size_t{1} << 20;
  {
    ScopedHostAllocator scoped(pool);
    AllocationPtr a = GetAllocator(CPUPlace{})->Allocate(6 * kMB);
    std::memset(a->ptr(), 1, 6 * kMB);
  }
  ASSERT_EQ(pool->free_bytes(), 6 * kMB);
  // Resident pages in [begin, begin + bytes).
  auto resident = [](const char* begin, size_t bytes) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> pages((bytes + page - 1) / page);
    EXPECT_EQ(mincore(const_cast<char*>(begin), bytes, pages.data()), 0);
    size_t count = 0;
    for (unsigned char p : pages) count += p & 1;
    return count * page;
  };
  {
    AllocationPtr arena = pool->AllocateArena(6 * kMB, 4 * kMB);
    const char* base = static_cast<const char*>(arena->ptr());
    EXPECT_EQ(resident(base, 4 * kMB), 4 * kMB);  // the warm part stays
    EXPECT_EQ(resident(base + 4 * kMB, 2 * kMB), 0u);
  }
  pool->Close();
}

// A kept buffer (a kernel's scratch, grown from run to run) is held to the
// limit for one tensor, but is no run's: counted as held, the runs after
// the one that grew it were charged for it, so whether a run passed the
// limit depended on what ran before.
TEST(HostBlockPool, AKeptBufferIsHeldToTheTensorLimitOnly) {
  CacheBudget budget(size_t{64} << 20);
  auto* pool = HostBlockPool::Create(&budget);
  constexpr size_t kMB = size_t{1} << 20;
  pool->SetLimits(4 * kMB, 6 * kMB);
  {
    ScopedHostAllocator scoped(pool);
    AllocationPtr kept = AllocateKeptHostBuffer(3 * kMB);
    EXPECT_EQ(pool->used_bytes(), 0u);
    // A run may still take all of its own limit.
    AllocationPtr tensor = GetAllocator(CPUPlace{})->Allocate(4 * kMB);
    AllocationPtr other = GetAllocator(CPUPlace{})->Allocate(2 * kMB);
    EXPECT_EQ(pool->used_bytes(), 6 * kMB);
    try {
      AllocateKeptHostBuffer(5 * kMB);
      ADD_FAILURE() << "a kept buffer over the tensor limit was allocated";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("over the limit for one tensor"),
                std::string::npos)
          << e.what();
    }
  }
  pool->Close();
}

// Free pages that no run of the last windows needed go back to the
// system, if they are worth it; what those runs took stays warm.
TEST(HostBlockPool, RunsThatLeaveFreePagesUnusedLetThemGo) {
  // The pool keeps at most a quarter of the budget free (16 MB) and hands
  // back no less than an eighth of that (2 MB).
  CacheBudget budget(size_t{64} << 20);
  auto* pool = HostBlockPool::Create(&budget);
  auto run = [pool](size_t bytes) {
    ScopedHostAllocator scoped(pool);
    AllocationPtr a = GetAllocator(CPUPlace{})->Allocate(bytes);
    std::memset(a->ptr(), 1, bytes);  // touched, as a run does
    pool->EndOfRun();
  };
  constexpr size_t kMB = size_t{1} << 20;
  const int remembered =
      HostBlockPool::kDecayRuns * HostBlockPool::kDecayWindows;
  // A burst of large runs (new shapes) leaves 8 MB warm; they needed it.
  for (int i = 0; i < remembered; ++i) run(8 * kMB);
  EXPECT_EQ(pool->free_bytes(), 8 * kMB);
  // Runs that take 1 MB: the other 7 MB go once no remembered window
  // needed them, not before.
  for (int i = 0; i < remembered; ++i) {
    EXPECT_EQ(pool->free_bytes(), 8 * kMB) << "run " << i;
    run(kMB);
  }
  EXPECT_EQ(pool->free_bytes(), kMB);
  EXPECT_EQ(budget.UsedByCache()["host.pool"], kMB);
  // Runs that keep taking the 1 MB keep it.
  for (int i = 0; i < 2 * remembered; ++i) run(kMB);
  EXPECT_EQ(pool->free_bytes(), kMB);
  // Runs that take nothing from the pool (replays): 1 MB is not worth
  // handing back, 3 MB is.
  for (int i = 0; i < 2 * remembered; ++i) pool->EndOfRun();
  EXPECT_EQ(pool->free_bytes(), kMB);
  run(3 * kMB);  // 4 MB free once its window is forgotten
  for (int i = 0; i < 2 * remembered; ++i) pool->EndOfRun();
  EXPECT_EQ(pool->free_bytes(), 0u);
  pool->Close();
  EXPECT_EQ(budget.used(), 0u);
}

// KeepResident (a predictor's warm-up at load) makes free pages resident
// past what runs touched, up to what the pool may keep free: a larger
// block after it lands on those pages, written without faulting them in.
TEST(HostBlockPool, KeepResidentPopulatesFreePagesForALargerBlock) {
  constexpr size_t kMB = size_t{1} << 20;
  CacheBudget budget(64 * kMB);  // the pool keeps at most 16 MB free
  auto* pool = HostBlockPool::Create(&budget);
  void* first = nullptr;
  {
    ScopedHostAllocator scoped(pool);
    AllocationPtr a = GetAllocator(CPUPlace{})->Allocate(256 << 10);
    std::memset(a->ptr(), 1, 256 << 10);
    first = a->ptr();
  }
  EXPECT_EQ(pool->peak_used_bytes(), size_t{256} << 10);
  EXPECT_EQ(pool->free_bytes(), size_t{256} << 10);
  pool->KeepResident(3 * kMB);
  EXPECT_EQ(pool->free_bytes(), 3 * kMB);
  EXPECT_EQ(budget.UsedByCache()["host.pool"], 3 * kMB);
  EXPECT_EQ(pool->peak_used_bytes(), size_t{256} << 10);  // not a run's
  pool->KeepResident(kMB);  // already more than that: nothing to do
  EXPECT_EQ(pool->free_bytes(), 3 * kMB);
  {
    ScopedHostAllocator scoped(pool);
    AllocationPtr b = GetAllocator(CPUPlace{})->Allocate(3 * kMB);
    EXPECT_EQ(b->ptr(), first);
    EXPECT_EQ(pool->free_bytes(), 0u);  // all of it was resident
    rusage before, after;
    getrusage(RUSAGE_THREAD, &before);
    std::memset(b->ptr(), 2, 3 * kMB);
    getrusage(RUSAGE_THREAD, &after);
    // 768 pages; a few faults elsewhere (the test's own stack) may count.
    EXPECT_LT(after.ru_minflt - before.ru_minflt, 16) << "pages faulted in";
  }
  pool->KeepResident(100 * kMB);  // bounded by what it may keep free
  EXPECT_EQ(pool->free_bytes(), 16 * kMB);
  pool->Close();
  EXPECT_EQ(budget.used(), 0u);
}

// Under a limit on the address space (ulimit -v) a pool reserves none, so
// two pools (two predictors) may use what the limit leaves. Reserving as
// elsewhere, the first took 512 MB of a 600 MB margin for its 1 MB block,
// and the second could not get 200 MB.
TEST(HostBlockPool, ReservesNoAddressSpaceUnderALimit) {
#if defined(PDLITE_TEST_ASAN)
  GTEST_SKIP() << "AddressSanitizer's shadow needs an unlimited address space";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // In a child process: the limit stays there.
  auto two_pools_under_a_limit = [] {
    constexpr size_t kMB = size_t{1} << 20;
    const size_t mapped = AddressSpaceMapped();
    if (mapped == 0) _exit(2);
    rlimit limit;
    if (getrlimit(RLIMIT_AS, &limit) != 0) _exit(3);
    limit.rlim_cur = mapped + 600 * kMB;
    if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(3);
    CacheBudget budget(size_t{1} << 30);
    auto* first = HostBlockPool::Create(&budget);
    auto* second = HostBlockPool::Create(&budget);
    try {
      AllocationPtr small, large;
      {
        ScopedHostAllocator scoped(first);
        small = GetAllocator(CPUPlace{})->Allocate(kMB);
      }
      ScopedHostAllocator scoped(second);
      large = GetAllocator(CPUPlace{})->Allocate(200 * kMB);
      std::memset(large->ptr(), 1, 200 * kMB);
    } catch (const std::exception& e) {
      fprintf(stderr, "%s\n", e.what());
      _exit(1);
    }
    _exit(0);
  };
  EXPECT_EXIT(two_pools_under_a_limit(), ::testing::ExitedWithCode(0), "");
#endif
}

}  // namespace
}  // namespace platform
}  // namespace paddle_lite
