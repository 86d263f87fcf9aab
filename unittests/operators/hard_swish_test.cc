#include <algorithm>

#include "gtest/gtest.h"
#include "unittests/operators/unary_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

double HardSwish(double x, double threshold, double scale, double offset) {
  return x * std::min(std::max(x + offset, 0.0), threshold) / scale;
}

TEST(HardSwishOp, DefaultsAre6And6And3) {
  // Kinks at x = -3 and x = 3.
  ExpectTensorNear(
      RunUnary("hard_swish",
               MakeTensor<float>({7}, {-10, -3, -1, 0, 1, 3, 10})),
      MakeTensor<float>({7}, {0, 0, -1.0f / 3, 0, 2.0f / 3, 3, 10}), 1e-6,
      1e-6);
}

TEST(HardSwishOp, HonoursAttributes) {
  struct Attrs {
    float threshold, scale, offset;
  };
  for (const Attrs& a : {Attrs{4, 5, 2}, Attrs{6, 6, 3}, Attrs{1, 0.5f, 0}}) {
    auto ref = [a](double x) {
      return HardSwish(x, a.threshold, a.scale, a.offset);
    };
    AttrList attrs = {
        {"threshold", a.threshold}, {"scale", a.scale}, {"offset", a.offset}};
    CheckUnarySizes<float>("hard_swish", attrs, ref, -8, 8, 1e-5, 1e-5);
    CheckUnarySizes<double>("hard_swish", attrs, ref);
  }
}

TEST(HardSwishOp, AllKernelsAgree) {
  OpTester t("hard_swish");
  t.Input("X", RandomTensor<float>({2, 3, 13}, -5, 5)).Output("Out");
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
