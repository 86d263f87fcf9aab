#include "gtest/gtest.h"
#include "unittests/operators/unary_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

TEST(LeakyReluOp, DefaultAlphaIs002) {
  ExpectTensorNear(
      RunUnary("leaky_relu", MakeTensor<float>({4}, {-10, -1, 0, 3})),
      MakeTensor<float>({4}, {-0.2f, -0.02f, 0, 3}), 1e-7, 1e-6);
}

TEST(LeakyReluOp, HonoursAlpha) {
  ExpectTensorNear(RunUnary("leaky_relu", MakeTensor<float>({3}, {-10, 0, 3}),
                            {{"alpha", 0.1f}}),
                   MakeTensor<float>({3}, {-1, 0, 3}), 1e-6, 1e-6);
  // Extremes: 0 is relu, 1 is the identity, negative flips the sign.
  for (float alpha : {0.0f, 1.0f, 0.01f, -0.5f, 3.0f}) {
    auto ref = [alpha](double x) { return x >= 0 ? x : alpha * x; };
    CheckUnarySizes<float>("leaky_relu", {{"alpha", alpha}}, ref);
    CheckUnarySizes<double>("leaky_relu", {{"alpha", alpha}}, ref);
  }
}

TEST(LeakyReluOp, AllKernelsAgree) {
  OpTester t("leaky_relu");
  t.Input("X", RandomTensor<float>({2, 3, 13}))
      .Output("Out")
      .Attr("alpha", 0.1f);
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
