#include <cstdint>
#include <string>

#include "gtest/gtest.h"
#include "unittests/operators/elementwise_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::Tensor;

auto Mul = [](auto a, auto b) { return a * b; };

Tensor RunMul(const Tensor& x, const Tensor& y, int axis = kNoAxis) {
  OpTester t("elementwise_mul");
  t.Input("X", x).Input("Y", y).Output("Out", x.dtype());
  if (axis != kNoAxis) t.Attr("axis", axis);
  t.Run();
  return t.GetOutput("Out");
}

TEST(ElementwiseMulOp, ByHand) {
  ExpectTensorNear(RunMul(MakeTensor<float>({2, 2}, {1, 2, 3, 4}),
                          MakeTensor<float>({2, 2}, {4, 3, 2, -1})),
                   MakeTensor<float>({2, 2}, {4, 6, 6, -4}));
  // Per-channel scale: X [1, 2, 1, 2] * Y [2] with axis 1.
  ExpectTensorNear(RunMul(MakeTensor<float>({1, 2, 1, 2}, {1, 2, 3, 4}),
                          MakeTensor<float>({2}, {10, -1}), 1),
                   MakeTensor<float>({1, 2, 1, 2}, {10, 20, -3, -4}));
}

TEST(ElementwiseMulOp, BroadcastMatchesReference) {
  CheckElementwise<float>("elementwise_mul",
                          RandomTensor<float>({2, 13, 5, 7}, -5, 5, 1),
                          RandomTensor<float>({13, 5}, -5, 5, 2), 1, Mul);
  CheckElementwise<float>("elementwise_mul", RandomTensor<float>({7}, -5, 5, 1),
                          RandomTensor<float>({2, 7, 3}, -5, 5, 2), 1, Mul);
  CheckElementwise<float>("elementwise_mul",
                          RandomTensor<float>({127, 1}, -5, 5, 1),
                          RandomTensor<float>({1, 13}, -5, 5, 2), -1, Mul);
  CheckElementwise<float>("elementwise_mul", RandomTensor<float>({1}),
                          RandomTensor<float>({1}), -1, Mul);
  CheckElementwise<float>("elementwise_mul", RandomTensor<float>({2, 0}),
                          RandomTensor<float>({1}), -1, Mul);
}

// Images times one factor per channel (a squeeze-and-excitation block's
// scaling): factors per image or shared, on either side, planes on each
// side of a vector's 16 lanes, and split across threads.
TEST(ElementwiseMulOp, ChannelFactorsMatchReference) {
  for (int64_t pixels : {2, 15, 16, 17, 35}) {
    SCOPED_TRACE("pixels " + std::to_string(pixels));
    const framework::DDim images = {3, 5, 1, pixels};
    CheckElementwise<float>(
        "elementwise_mul", RandomTensor<float>(images, -5, 5, 1),
        RandomTensor<float>({3, 5, 1, 1}, -5, 5, 2), -1, Mul);
    CheckElementwise<float>("elementwise_mul",
                            RandomTensor<float>({1, 5, 1, 1}, -5, 5, 3),
                            RandomTensor<float>(images, -5, 5, 4), -1, Mul);
  }
  CheckElementwise<float>("elementwise_mul",
                          RandomTensor<float>({2, 8, 7, 10}, -5, 5, 7),
                          RandomTensor<float>({2, 8, 1, 1}, -5, 5, 8), -1, Mul,
                          /*threads=*/3);
  // A 1x1 image is no broadcast: the generic loop.
  CheckElementwise<float>("elementwise_mul",
                          RandomTensor<float>({2, 4, 1, 1}, -5, 5, 5),
                          RandomTensor<float>({2, 4, 1, 1}, -5, 5, 6), -1, Mul);
}

TEST(ElementwiseMulOp, DataTypes) {
  CheckElementwise<double>("elementwise_mul",
                           RandomTensor<double>({13, 3}, -5, 5, 1),
                           RandomTensor<double>({3}, -5, 5, 2), -1, Mul);
  ExpectTensorNear(RunMul(MakeTensor<int32_t>({3}, {1, -2, 3}),
                          MakeTensor<int32_t>({1}, {-5})),
                   MakeTensor<int32_t>({3}, {-5, 10, -15}), 0, 0);
  ExpectTensorNear(RunMul(MakeTensor<int64_t>({2}, {int64_t{1} << 40, 3}),
                          MakeTensor<int64_t>({2}, {4, 5})),
                   MakeTensor<int64_t>({2}, {int64_t{1} << 42, 15}), 0, 0);
}

TEST(ElementwiseMulOp, Errors) {
  ExpectError(
      [] {
        RunMul(RandomTensor<float>({4, 3}), RandomTensor<float>({4}));
      },
      ErrorCode::kInvalidArgument, {"elementwise_mul", "[4, 3]", "[4]"});
}

TEST(ElementwiseMulOp, AllKernelsAgree) {
  OpTester t("elementwise_mul");
  t.Input("X", RandomTensor<float>({2, 3, 13}))
      .Input("Y", RandomTensor<float>({2, 3, 13}, -1, 1, 2))
      .Output("Out");
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
