#include <cmath>

#include "gtest/gtest.h"
#include "unittests/operators/unary_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

TEST(SigmoidOp, ByHand) {
  ExpectTensorNear(RunUnary("sigmoid", MakeTensor<float>({3}, {0, 2, -2})),
                   MakeTensor<float>({3}, {0.5f, 0.880797078f, 0.119202922f}),
                   1e-6, 1e-6);
}

TEST(SigmoidOp, MatchesStdExp) {
  CheckUnarySizes<float>("sigmoid", {}, Sigmoid, -20, 20, 1e-6, 1e-5);
  CheckUnarySizes<double>("sigmoid", {}, Sigmoid, -20, 20, 1e-12, 1e-12);
}

TEST(SigmoidOp, SaturatesWithoutNaN) {
  ExpectTensorNear(
      RunUnary("sigmoid", MakeTensor<float>({4}, {-1000, -100, 100, 1000})),
      MakeTensor<float>({4}, {0, 0, 1, 1}), 1e-30, 0);
}

TEST(SigmoidOp, AllKernelsAgree) {
  OpTester t("sigmoid");
  t.Input("X", RandomTensor<float>({2, 3, 13}, -5, 5)).Output("Out");
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
