#include <algorithm>

#include "gtest/gtest.h"
#include "unittests/operators/unary_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

TEST(ReluOp, ByHand) {
  ExpectTensorNear(
      RunUnary("relu", MakeTensor<float>({2, 3}, {-1, 0, 1, 2, -3, 4.5f})),
      MakeTensor<float>({2, 3}, {0, 0, 1, 2, 0, 4.5f}), 0, 0);
}

TEST(ReluOp, SizesAndTypes) {
  auto ref = [](double x) { return std::max(x, 0.0); };
  CheckUnarySizes<float>("relu", {}, ref);
  CheckUnarySizes<double>("relu", {}, ref);
}

TEST(ReluOp, KeepsLoD) {
  CheckUnary<float>("relu", MakeTensor<float>({3, 1}, {-1, 2, -3}, {{0, 2, 3}}),
                    {}, [](double x) { return std::max(x, 0.0); });
}

TEST(ReluOp, AllKernelsAgree) {
  OpTester t("relu");
  t.Input("X", RandomTensor<float>({2, 3, 13, 7})).Output("Out");
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
