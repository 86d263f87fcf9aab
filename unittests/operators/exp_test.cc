#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"
#include "unittests/operators/unary_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

TEST(ExpOp, ByHand) {
  ExpectTensorNear(RunUnary("exp", MakeTensor<float>({3}, {0, 1, -1})),
                   MakeTensor<float>({3}, {1, 2.718281828f, 0.367879441f}),
                   1e-6, 1e-6);
}

TEST(ExpOp, MatchesStdExp) {
  auto ref = [](double x) { return std::exp(x); };
  CheckUnarySizes<float>("exp", {}, ref, -20, 20, 1e-6, 1e-6);
  CheckUnarySizes<double>("exp", {}, ref, -20, 20, 1e-12, 1e-12);
}

TEST(ExpOp, OverflowAndUnderflow) {
  const float inf = std::numeric_limits<float>::infinity();
  ExpectTensorNear(RunUnary("exp", MakeTensor<float>({3}, {100, -200, -inf})),
                   MakeTensor<float>({3}, {inf, 0, 0}), 0, 0);
}

TEST(ExpOp, IntegerTypesTruncate) {
  ExpectTensorNear(RunUnary("exp", MakeTensor<int32_t>({5}, {0, 1, 2, 3, -1})),
                   MakeTensor<int32_t>({5}, {1, 2, 7, 20, 0}), 0, 0);
  ExpectTensorNear(RunUnary("exp", MakeTensor<int64_t>({2}, {10, 30})),
                   MakeTensor<int64_t>({2}, {22026, 10686474581524}), 0, 0);
}

TEST(ExpOp, AllKernelsAgree) {
  OpTester t("exp");
  t.Input("X", RandomTensor<float>({2, 3, 13}, -5, 5)).Output("Out");
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
