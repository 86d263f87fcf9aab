#include <cmath>

#include "gtest/gtest.h"
#include "unittests/operators/unary_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

TEST(TanhOp, ByHand) {
  ExpectTensorNear(RunUnary("tanh", MakeTensor<float>({3}, {0, 1, -1})),
                   MakeTensor<float>({3}, {0, 0.761594156f, -0.761594156f}),
                   1e-6, 1e-6);
}

TEST(TanhOp, MatchesStdTanh) {
  auto ref = [](double x) { return std::tanh(x); };
  CheckUnarySizes<float>("tanh", {}, ref, -10, 10, 1e-6, 1e-5);
  CheckUnarySizes<double>("tanh", {}, ref, -10, 10, 1e-12, 1e-12);
}

TEST(TanhOp, SaturatesWithoutNaN) {
  ExpectTensorNear(
      RunUnary("tanh", MakeTensor<float>({4}, {-1000, -50, 50, 1000})),
      MakeTensor<float>({4}, {-1, -1, 1, 1}), 0, 0);
}

TEST(TanhOp, AllKernelsAgree) {
  OpTester t("tanh");
  t.Input("X", RandomTensor<float>({2, 3, 13}, -5, 5)).Output("Out");
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
