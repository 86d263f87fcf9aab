#include "framework/narrow_run_policy.h"

#include <limits>

#include "gtest/gtest.h"

namespace paddle_lite {
namespace framework {
namespace {

TEST(NarrowRunPolicy, NothingRecordedKeepsEveryThread) {
  NarrowRunPolicy policy(2);
  EXPECT_FALSE(policy.Narrow(1));
  EXPECT_LT(policy.OneThreadMs(1), 0);
}

TEST(NarrowRunPolicy, OneThreadNeverNarrows) {
  NarrowRunPolicy policy(1);
  policy.RecordOneThread(0.1, 1e4);
  EXPECT_FALSE(policy.Narrow(1e4));
}

TEST(NarrowRunPolicy, SmallRunsOfAOneThreadRecordGoNarrow) {
  // The classifier at its declared 1x3x32x100 (9600 elements): 0.25 ms.
  NarrowRunPolicy policy(2);
  policy.RecordOneThread(0.25, 9600);
  EXPECT_DOUBLE_EQ(policy.OneThreadMs(9600), 0.25);
  EXPECT_TRUE(policy.Narrow(9600));
  // 1x3x48x448: 64512 elements, estimated 1.68 ms.
  EXPECT_TRUE(policy.Narrow(64512));
  // A batch of 16 at 48x192: 442368 elements, estimated 11.5 ms.
  EXPECT_FALSE(policy.Narrow(442368));
}

TEST(NarrowRunPolicy, AllThreadRunsBoundTheOneThreadCost) {
  // 0.4 ms on 2 threads is at most 0.8 ms on one.
  NarrowRunPolicy policy(2);
  policy.RecordAllThreads(0.4, 1e4);
  EXPECT_DOUBLE_EQ(policy.OneThreadMs(1e4), 0.8);
  EXPECT_TRUE(policy.Narrow(2e4));   // 1.6 ms
  EXPECT_FALSE(policy.Narrow(3e4));  // 2.4 ms
  // A detector: 40 ms on 2 threads for 1x3x640x640.
  NarrowRunPolicy detector(2);
  detector.RecordAllThreads(40, 3 * 640 * 640);
  EXPECT_FALSE(detector.Narrow(3 * 320 * 320));
}

TEST(NarrowRunPolicy, TheLowestCostPerElementStands) {
  // Larger shapes cost less per element; a slow run (a busy machine, or
  // one that made code) does not raise the estimate.
  NarrowRunPolicy policy(2);
  policy.RecordOneThread(0.5, 1e4);   // 5e-5 ms an element
  policy.RecordOneThread(3.0, 1e5);   // 3e-5
  policy.RecordOneThread(10.0, 1e4);  // slow: ignored
  EXPECT_DOUBLE_EQ(policy.OneThreadMs(5e4), 1.5);
  EXPECT_TRUE(policy.Narrow(5e4));
  EXPECT_FALSE(policy.Narrow(7e4));  // 2.1 ms
}

TEST(NarrowRunPolicy, IgnoresTimesThatSayNothing) {
  NarrowRunPolicy policy(2);
  policy.RecordOneThread(0, 1e4);
  policy.RecordOneThread(-1, 1e4);
  policy.RecordAllThreads(std::numeric_limits<double>::quiet_NaN(), 1e4);
  EXPECT_LT(policy.OneThreadMs(1e4), 0);
  EXPECT_FALSE(policy.Narrow(1e4));
  // Zero elements count as one.
  policy.RecordOneThread(1, 0);
  EXPECT_DOUBLE_EQ(policy.OneThreadMs(0), 1);
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
