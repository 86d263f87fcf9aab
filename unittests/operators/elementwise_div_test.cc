#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"
#include "unittests/operators/elementwise_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::Tensor;

auto Div = [](auto a, auto b) { return a / b; };

Tensor RunDiv(const Tensor& x, const Tensor& y, int axis = kNoAxis) {
  OpTester t("elementwise_div");
  t.Input("X", x).Input("Y", y).Output("Out", x.dtype());
  if (axis != kNoAxis) t.Attr("axis", axis);
  t.Run();
  return t.GetOutput("Out");
}

TEST(ElementwiseDivOp, ByHand) {
  ExpectTensorNear(RunDiv(MakeTensor<float>({2, 2}, {1, 2, 3, -4}),
                          MakeTensor<float>({2}, {2, 4})),
                   MakeTensor<float>({2, 2}, {0.5f, 0.5f, 1.5f, -1}));
  // X broadcast against Y: 1 / Y.
  ExpectTensorNear(
      RunDiv(MakeTensor<float>({1}, {1}), MakeTensor<float>({3}, {2, 4, -8})),
      MakeTensor<float>({3}, {0.5f, 0.25f, -0.125f}));
}

TEST(ElementwiseDivOp, BroadcastMatchesReference) {
  CheckElementwise<float>("elementwise_div",
                          RandomTensor<float>({2, 13, 5, 7}, -5, 5, 1),
                          RandomTensor<float>({13}, 1, 5, 2), 1, Div);
  CheckElementwise<float>("elementwise_div",
                          RandomTensor<float>({13}, -5, 5, 1),
                          RandomTensor<float>({127, 13}, 1, 5, 2), -1, Div);
  CheckElementwise<float>("elementwise_div", RandomTensor<float>({0, 3}),
                          RandomTensor<float>({3}, 1, 2), -1, Div);
}

TEST(ElementwiseDivOp, FloatDivisionByZeroFollowsIeee) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ExpectTensorNear(RunDiv(MakeTensor<float>({3}, {1, -1, 0}),
                          MakeTensor<float>({3}, {0, 0, 0})),
                   MakeTensor<float>({3}, {inf, -inf, nan}));
}

TEST(ElementwiseDivOp, IntegerDivisionTruncates) {
  ExpectTensorNear(RunDiv(MakeTensor<int32_t>({4}, {7, -7, 7, -7}),
                          MakeTensor<int32_t>({4}, {2, 2, -2, -2})),
                   MakeTensor<int32_t>({4}, {3, -3, -3, 3}), 0, 0);
  ExpectTensorNear(RunDiv(MakeTensor<int64_t>({2}, {int64_t{1} << 40, -9}),
                          MakeTensor<int64_t>({1}, {4})),
                   MakeTensor<int64_t>({2}, {int64_t{1} << 38, -2}), 0, 0);
  // The one overflowing quotient wraps instead of trapping.
  const int32_t min = std::numeric_limits<int32_t>::min();
  ExpectTensorNear(RunDiv(MakeTensor<int32_t>({2}, {min, 6}),
                          MakeTensor<int32_t>({1}, {-1})),
                   MakeTensor<int32_t>({2}, {min, -6}), 0, 0);
}

TEST(ElementwiseDivOp, IntegerDivisionByZeroIsAnError) {
  ExpectError(
      [] {
        RunDiv(MakeTensor<int32_t>({3}, {1, 2, 3}),
               MakeTensor<int32_t>({3}, {1, 0, 3}));
      },
      ErrorCode::kInvalidArgument, {"elementwise_div", "division by zero"});
  ExpectError(
      [] {
        RunDiv(MakeTensor<int64_t>({2, 2}, {1, 2, 3, 4}),
               MakeTensor<int64_t>({1}, {0}));
      },
      ErrorCode::kInvalidArgument, {"elementwise_div", "division by zero"});
  // No element is divided when the output is empty.
  EXPECT_EQ(
      RunDiv(MakeTensor<int32_t>({0, 1}, {}), MakeTensor<int32_t>({1}, {0}))
          .numel(),
      0);
}

TEST(ElementwiseDivOp, DataTypes) {
  CheckElementwise<double>("elementwise_div",
                           RandomTensor<double>({13, 3}, -5, 5, 1),
                           RandomTensor<double>({3}, 1, 5, 2), -1, Div);
}

TEST(ElementwiseDivOp, Errors) {
  ExpectError(
      [] {
        RunDiv(RandomTensor<float>({4, 3}), RandomTensor<float>({2, 3}));
      },
      ErrorCode::kInvalidArgument, {"elementwise_div", "[4, 3]", "[2, 3]"});
}

TEST(ElementwiseDivOp, AllKernelsAgree) {
  OpTester t("elementwise_div");
  t.Input("X", RandomTensor<float>({2, 3, 13}))
      .Input("Y", RandomTensor<float>({3, 1}, 1, 2, 2))
      .Attr("axis", 1)
      .Output("Out");
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
