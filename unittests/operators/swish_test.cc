#include <cmath>

#include "gtest/gtest.h"
#include "unittests/operators/unary_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

double Swish(double x, double beta) { return x / (1.0 + std::exp(-beta * x)); }

TEST(SwishOp, DefaultBetaIs1) {
  ExpectTensorNear(RunUnary("swish", MakeTensor<float>({3}, {0, 2, -2})),
                   MakeTensor<float>({3}, {0, 1.761594156f, -0.238405844f}),
                   1e-6, 1e-6);
}

TEST(SwishOp, HonoursBeta) {
  // beta 0 gives x / 2; large beta approaches relu.
  for (float beta : {1.0f, 1.7f, 0.0f, 50.0f, -1.0f}) {
    auto ref = [beta](double x) { return Swish(x, beta); };
    CheckUnarySizes<float>("swish", {{"beta", beta}}, ref, -8, 8, 1e-5, 1e-5);
    CheckUnarySizes<double>("swish", {{"beta", beta}}, ref, -8, 8, 1e-12,
                            1e-12);
  }
}

TEST(SwishOp, LargeInputsWithoutNaN) {
  ExpectTensorNear(RunUnary("swish", MakeTensor<float>({2}, {-1000, 1000})),
                   MakeTensor<float>({2}, {0, 1000}), 1e-30, 0);
}

TEST(SwishOp, AllKernelsAgree) {
  OpTester t("swish");
  t.Input("X", RandomTensor<float>({2, 3, 13}, -5, 5)).Output("Out");
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
