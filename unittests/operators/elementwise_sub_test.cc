#include <cstdint>

#include "gtest/gtest.h"
#include "unittests/operators/elementwise_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::Tensor;

auto Sub = [](auto a, auto b) { return a - b; };

Tensor RunSub(const Tensor& x, const Tensor& y, int axis = kNoAxis) {
  OpTester t("elementwise_sub");
  t.Input("X", x).Input("Y", y).Output("Out", x.dtype());
  if (axis != kNoAxis) t.Attr("axis", axis);
  t.Run();
  return t.GetOutput("Out");
}

TEST(ElementwiseSubOp, ByHand) {
  ExpectTensorNear(RunSub(MakeTensor<float>({2, 2}, {1, 2, 3, 4}),
                          MakeTensor<float>({2, 2}, {4, 3, 2, 1})),
                   MakeTensor<float>({2, 2}, {-3, -1, 1, 3}));
  // Operand order is kept when X is the one broadcast.
  ExpectTensorNear(RunSub(MakeTensor<float>({2}, {10, 20}),
                          MakeTensor<float>({2, 2}, {1, 2, 3, 4}), 0),
                   MakeTensor<float>({2, 2}, {9, 8, 17, 16}));
}

TEST(ElementwiseSubOp, BroadcastMatchesReference) {
  CheckElementwise<float>("elementwise_sub",
                          RandomTensor<float>({2, 13, 5, 7}, -5, 5, 1),
                          RandomTensor<float>({13}, -5, 5, 2), 1, Sub);
  CheckElementwise<float>("elementwise_sub",
                          RandomTensor<float>({127}, -5, 5, 1),
                          RandomTensor<float>({3, 127}, -5, 5, 2), -1, Sub);
  CheckElementwise<float>("elementwise_sub",
                          RandomTensor<float>({3, 1, 13}, -5, 5, 1),
                          RandomTensor<float>({1, 4, 1}, -5, 5, 2), -1, Sub);
  CheckElementwise<float>("elementwise_sub", RandomTensor<float>({0, 4}),
                          RandomTensor<float>({4}), -1, Sub);
  CheckElementwise<float>("elementwise_sub",
                          RandomTensor<float>({3, 50, 41, 53}, -5, 5, 1),
                          RandomTensor<float>({50}, -5, 5, 2), 1, Sub,
                          /*threads=*/4);
}

TEST(ElementwiseSubOp, DataTypes) {
  CheckElementwise<double>("elementwise_sub",
                           RandomTensor<double>({13, 3}, -5, 5, 1),
                           RandomTensor<double>({13}, -5, 5, 2), 0, Sub);
  ExpectTensorNear(RunSub(MakeTensor<int32_t>({3}, {1, -2, 3}),
                          MakeTensor<int32_t>({1}, {5})),
                   MakeTensor<int32_t>({3}, {-4, -7, -2}), 0, 0);
  ExpectTensorNear(
      RunSub(MakeTensor<int64_t>({2}, {int64_t{1} << 40, 0}),
             MakeTensor<int64_t>({2}, {1, int64_t{1} << 41})),
      MakeTensor<int64_t>({2}, {(int64_t{1} << 40) - 1, -(int64_t{1} << 41)}),
      0, 0);
}

TEST(ElementwiseSubOp, Errors) {
  ExpectError(
      [] {
        RunSub(RandomTensor<float>({2, 3}), RandomTensor<float>({2}));
      },
      ErrorCode::kInvalidArgument, {"elementwise_sub", "[2, 3]", "[2]"});
  ExpectError(
      [] {
        RunSub(RandomTensor<float>({2, 3}), RandomTensor<float>({3}), 5);
      },
      ErrorCode::kInvalidArgument, {"elementwise_sub", "axis 5"});
}

TEST(ElementwiseSubOp, AllKernelsAgree) {
  OpTester t("elementwise_sub");
  t.Input("X", RandomTensor<float>({2, 3, 13}))
      .Input("Y", RandomTensor<float>({13}, -1, 1, 2))
      .Output("Out");
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
