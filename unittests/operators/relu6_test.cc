#include <algorithm>

#include "gtest/gtest.h"
#include "unittests/operators/unary_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

TEST(Relu6Op, DefaultThresholdIs6) {
  ExpectTensorNear(
      RunUnary("relu6", MakeTensor<float>({6}, {-1, 0, 3, 6, 7, 100})),
      MakeTensor<float>({6}, {0, 0, 3, 6, 6, 6}), 0, 0);
}

TEST(Relu6Op, HonoursThreshold) {
  ExpectTensorNear(RunUnary("relu6", MakeTensor<float>({4}, {-1, 1, 2.5f, 3}),
                            {{"threshold", 2.5f}}),
                   MakeTensor<float>({4}, {0, 1, 2.5f, 2.5f}), 0, 0);
  for (float threshold : {4.0f, 0.5f, 1e30f}) {
    auto ref = [threshold](double x) {
      return std::min(std::max(x, 0.0), static_cast<double>(threshold));
    };
    CheckUnarySizes<float>("relu6", {{"threshold", threshold}}, ref);
    CheckUnarySizes<double>("relu6", {{"threshold", threshold}}, ref);
  }
}

TEST(Relu6Op, AllKernelsAgree) {
  OpTester t("relu6");
  t.Input("X", RandomTensor<float>({2, 3, 13}, -10, 10)).Output("Out");
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
