#include <algorithm>
#include <cmath>
#include <limits>

#include "gtest/gtest.h"
#include "unittests/operators/unary_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

double HardSigmoid(double x, double slope, double offset) {
  return std::max(0.0, std::min(1.0, slope * x + offset));
}

TEST(HardSigmoidOp, DefaultsAreSlope02Offset05) {
  // Kinks at x = -2.5 and x = 2.5.
  ExpectTensorNear(
      RunUnary("hard_sigmoid",
               MakeTensor<float>({7}, {-10, -2.5f, -1, 0, 1, 2.5f, 10})),
      MakeTensor<float>({7}, {0, 0, 0.3f, 0.5f, 0.7f, 1, 1}), 1e-6, 1e-6);
}

TEST(HardSigmoidOp, HonoursSlopeAndOffset) {
  // paddle.nn.Hardsigmoid's values, then arbitrary ones.
  const float slopes[] = {0.1666667f, 1.0f, 0.3f};
  const float offsets[] = {0.5f, 0.0f, -0.2f};
  for (int i = 0; i < 3; ++i) {
    const float slope = slopes[i];
    const float offset = offsets[i];
    auto ref = [&](double x) { return HardSigmoid(x, slope, offset); };
    AttrList attrs = {{"slope", slope}, {"offset", offset}};
    CheckUnarySizes<float>("hard_sigmoid", attrs, ref);
    CheckUnarySizes<double>("hard_sigmoid", attrs, ref);
  }
  // Only one attribute set: the other keeps its default.
  ExpectTensorNear(RunUnary("hard_sigmoid", MakeTensor<float>({2}, {0, 1}),
                            {{"slope", 0.25f}}),
                   MakeTensor<float>({2}, {0.5f, 0.75f}), 1e-6, 1e-6);
}

// A NaN stays NaN (as in Paddle); the clamps had made it 1.
TEST(HardSigmoidOp, NaNStaysNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const framework::Tensor out =
      RunUnary("hard_sigmoid", MakeTensor<float>({3}, {nan, -10.f, 10.f}));
  EXPECT_TRUE(std::isnan(out.data<float>()[0])) << out.data<float>()[0];
  EXPECT_EQ(out.data<float>()[1], 0.f);
  EXPECT_EQ(out.data<float>()[2], 1.f);
}

TEST(HardSigmoidOp, AllKernelsAgree) {
  OpTester t("hard_sigmoid");
  t.Input("X", RandomTensor<float>({2, 3, 13}, -5, 5)).Output("Out");
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
