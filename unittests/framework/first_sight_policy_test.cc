#include "framework/first_sight_policy.h"

#include "gtest/gtest.h"

namespace paddle_lite {
namespace framework {
namespace {

TEST(FirstSightPolicy, NeverTriesGenericWhenFirstRunsAreMostlyComputing) {
  // A detector: a first run of 85 ms of which 35 making, made runs 46 ms.
  FirstSightPolicy policy;
  policy.RecordSpecialised(85, 35, 1e6);
  EXPECT_FALSE(policy.WantsGeneric());
  for (int i = 0; i < 20; ++i) {
    policy.RecordMade(46, 1e6);
    policy.RecordSpecialised(80, 30, 1e6);
  }
  EXPECT_FALSE(policy.WantsGeneric());
  EXPECT_FALSE(policy.GenericForGood());
  EXPECT_FALSE(policy.GenericWhileMaking());
}

TEST(FirstSightPolicy, TriesGenericWhenMakingDominatesTheFirstRun) {
  // The classifier: 9 ms, 8 of them making.
  FirstSightPolicy policy;
  policy.RecordSpecialised(9, 8, 1e4);
  EXPECT_TRUE(policy.WantsGeneric());
  // Not measured yet: tried, both ways.
  EXPECT_TRUE(policy.GenericForGood());
  EXPECT_TRUE(policy.GenericWhileMaking());
}

TEST(FirstSightPolicy, TimedMadeRunsReplaceTheEstimate) {
  // The making measured on the run misses some of it (first executions of
  // new code): the estimate of a made run (5 ms) says no trial, the made
  // runs timed later (1 ms) say yes.
  FirstSightPolicy policy;
  policy.RecordSpecialised(10, 5, 1e4);
  EXPECT_FALSE(policy.WantsGeneric());
  policy.RecordMade(1, 1e4);
  EXPECT_TRUE(policy.WantsGeneric());
}

TEST(FirstSightPolicy, GenericForGoodOnlyWithinItsFactorOfMadeRuns) {
  FirstSightPolicy policy;
  policy.RecordSpecialised(9, 8, 1e4);
  policy.RecordMade(1, 1e4);
  policy.RecordGeneric(1.2, 1e4);
  EXPECT_TRUE(policy.GenericForGood());
  // Costs compare per input element: a run of twice the elements may take
  // twice as long.
  FirstSightPolicy sized;
  sized.RecordSpecialised(9, 8, 1e4);
  sized.RecordMade(1, 1e4);
  sized.RecordGeneric(2.4, 2e4);
  EXPECT_TRUE(sized.GenericForGood());
  // Slower than the factor: not for good, but still faster than a first
  // run, so it takes runs while a clone makes the shape.
  for (int i = 0; i < 20; ++i) policy.RecordGeneric(2, 1e4);
  EXPECT_FALSE(policy.GenericForGood());
  EXPECT_TRUE(policy.GenericWhileMaking());
  // Slower than first runs: not even then.
  for (int i = 0; i < 20; ++i) policy.RecordGeneric(20, 1e4);
  EXPECT_FALSE(policy.GenericWhileMaking());
  EXPECT_TRUE(policy.WantsGeneric());  // once wanted, it stays
  // Measured again every kRetryEvery-th shape it does not take.
  int retries = 0;
  for (int i = 0; i < 4 * FirstSightPolicy::kRetryEvery; ++i) {
    retries += policy.RetryGeneric();
  }
  EXPECT_EQ(retries, 4);
  // Never when not wanted.
  FirstSightPolicy detector;
  detector.RecordSpecialised(85, 35, 1e6);
  for (int i = 0; i < 4 * FirstSightPolicy::kRetryEvery; ++i) {
    EXPECT_FALSE(detector.RetryGeneric());
  }
}

TEST(FirstSightPolicy, WantsGenericThatRanFasterThanFirstRuns) {
  // A small first run went to the generic kernels (2 ms). The first
  // specialised run (12 ms, 4 of them making) is not mostly making, but
  // slower than the generic run: they are wanted.
  FirstSightPolicy policy;
  policy.RecordGeneric(2, 1e4);
  EXPECT_FALSE(policy.WantsGeneric());  // no specialised run timed yet
  policy.RecordSpecialised(12, 4, 1e4);
  EXPECT_TRUE(policy.WantsGeneric());
  // Generic runs slower than the specialised first runs: not wanted.
  FirstSightPolicy slow;
  slow.RecordGeneric(150, 1e6);
  slow.RecordSpecialised(85, 35, 1e6);
  EXPECT_FALSE(slow.WantsGeneric());
}

TEST(FirstSightPolicy, OneShapeOnBothKernelsDecidesForGood) {
  // Per element, generic runs of batch 2 (0.4 ms for 1e4 elements) look 4x
  // a made run of batch 20 (1 ms for 1e5): not for good.
  FirstSightPolicy policy;
  policy.RecordSpecialised(9, 8, 1e4);
  policy.RecordMade(1, 1e5);
  policy.RecordGeneric(0.4, 1e4);
  EXPECT_FALSE(policy.GenericForGood());
  // One shape on both: 1.2x. That decides.
  policy.RecordSameShape(1.2, 1);
  EXPECT_TRUE(policy.GenericForGood());
  for (int i = 0; i < 10; ++i) policy.RecordSameShape(2, 1);
  EXPECT_FALSE(policy.GenericForGood());
  // Never for good when not wanted, whatever the pairs say.
  FirstSightPolicy detector;
  detector.RecordSpecialised(85, 35, 1e6);
  detector.RecordSameShape(1, 1);
  EXPECT_FALSE(detector.GenericForGood());
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
