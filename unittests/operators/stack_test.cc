#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;
using framework::DDim;
using framework::Tensor;

// Naive reference: Y[o, i, k] = X[i][o, k] with o over dims before axis.
template <typename T>
Tensor ReferenceStack(const std::vector<Tensor>& xs, int axis) {
  const DDim& xd = xs[0].dims();
  DDim yd = xd;
  yd.insert(yd.begin() + axis, static_cast<int64_t>(xs.size()));
  const int64_t outer = framework::Product(xd, 0, axis);
  const int64_t inner =
      framework::Product(xd, axis, static_cast<int>(xd.size()));
  std::vector<T> y;
  for (int64_t o = 0; o < outer; ++o) {
    for (auto& x : xs) {
      std::vector<T> v = ToVector<T>(x);
      y.insert(y.end(), v.begin() + o * inner, v.begin() + (o + 1) * inner);
    }
  }
  return MakeTensor<T>(yd, y);
}

Tensor Stack(const std::vector<Tensor>& xs,
             int axis,
             DataType dtype = DataType::kFloat32) {
  OpTester t("stack");
  t.Inputs("X", xs).Output("Y", dtype).Attr("axis", axis);
  t.Run();
  return t.GetOutput("Y");
}

TEST(StackOp, ByHand) {
  std::vector<Tensor> xs = {MakeTensor<float>({2}, {1, 2}),
                            MakeTensor<float>({2}, {3, 4})};
  ExpectTensorNear(Stack(xs, 0), MakeTensor<float>({2, 2}, {1, 2, 3, 4}), 0, 0);
  ExpectTensorNear(Stack(xs, 1), MakeTensor<float>({2, 2}, {1, 3, 2, 4}), 0, 0);
  ExpectTensorNear(Stack(xs, -1), MakeTensor<float>({2, 2}, {1, 3, 2, 4}), 0,
                   0);
}

TEST(StackOp, DefaultAxisIsZero) {
  OpTester t("stack");
  t.Inputs("X", {MakeTensor<float>({1}, {5}), MakeTensor<float>({1}, {6})})
      .Output("Y");
  t.Run();
  ExpectTensorNear(t.GetOutput("Y"), MakeTensor<float>({2, 1}, {5, 6}), 0, 0);
}

TEST(StackOp, MatchesReference) {
  std::vector<Tensor> xs;
  for (uint32_t s = 1; s <= 3; ++s) {
    xs.push_back(RandomTensor<float>({2, 13, 3}, -1, 1, s));
  }
  for (int axis : {0, 1, 2, 3}) {
    ExpectTensorNear(Stack(xs, axis), ReferenceStack<float>(xs, axis), 0, 0);
  }
  ExpectTensorNear(Stack(xs, -2), ReferenceStack<float>(xs, 2), 0, 0);
  ExpectTensorNear(Stack(xs, -4), ReferenceStack<float>(xs, 0), 0, 0);
}

TEST(StackOp, EdgeShapes) {
  std::vector<Tensor> one = {MakeTensor<float>({3}, {1, 2, 3})};
  ExpectTensorNear(Stack(one, 0), MakeTensor<float>({1, 3}, {1, 2, 3}), 0, 0);
  std::vector<Tensor> scalars = {MakeTensor<float>({}, {1}),
                                 MakeTensor<float>({}, {2})};
  ExpectTensorNear(Stack(scalars, 0), MakeTensor<float>({2}, {1, 2}), 0, 0);
  std::vector<Tensor> empty = {MakeTensor<float>({0, 2}, {}),
                               MakeTensor<float>({0, 2}, {})};
  EXPECT_EQ(Stack(empty, 1).dims(), (DDim{0, 2, 2}));
  std::vector<Tensor> six = {RandomTensor<float>({1, 2, 1, 2, 3}, -1, 1, 1),
                             RandomTensor<float>({1, 2, 1, 2, 3}, -1, 1, 2)};
  ExpectTensorNear(Stack(six, 4), ReferenceStack<float>(six, 4), 0, 0);
}

TEST(StackOp, IntAndBoolData) {
  std::vector<Tensor> xs = {MakeTensor<int64_t>({2}, {1, int64_t(1) << 53}),
                            MakeTensor<int64_t>({2}, {-1, 3})};
  ExpectTensorNear(Stack(xs, 1, DataType::kInt64),
                   MakeTensor<int64_t>({2, 2}, {1, -1, int64_t(1) << 53, 3}), 0,
                   0);
  std::vector<Tensor> bs = {MakeTensor<bool>({1}, {true}),
                            MakeTensor<bool>({1}, {false})};
  ExpectTensorNear(Stack(bs, 0, DataType::kBool),
                   MakeTensor<bool>({2, 1}, {true, false}), 0, 0);
}

TEST(StackOp, MultiThreaded) {
  std::vector<Tensor> xs = {RandomTensor<float>({127, 13}, -1, 1, 1),
                            RandomTensor<float>({127, 13}, -1, 1, 2)};
  OpTester t("stack");
  t.Inputs("X", xs).Output("Y").Attr("axis", 1);
  t.Run(framework::LibraryType::Plain(), /*threads=*/2);
  ExpectTensorNear(t.GetOutput("Y"), ReferenceStack<float>(xs, 1), 0, 0);
}

TEST(StackOp, Errors) {
  ExpectError(
      [] {
        Stack(
            {MakeTensor<float>({2}, {1, 2}), MakeTensor<float>({3}, {1, 2, 3})},
            0);
      },
      ErrorCode::kInvalidArgument, {"stack", "[2]", "[3]"});
  ExpectError(
      [] {
        Stack({MakeTensor<float>({2}, {1, 2})}, 2);
      },
      ErrorCode::kInvalidArgument, {"stack", "axis = 2", "[2]", "[-2, 1]"});
  ExpectError(
      [] {
        Stack({MakeTensor<float>({2}, {1, 2})}, -3);
      },
      ErrorCode::kInvalidArgument, {"stack", "axis = -3"});
}

TEST(StackOp, AllKernelsAgree) {
  OpTester t("stack");
  t.Inputs("X", {RandomTensor<float>({13, 127}, -1, 1, 1),
                 RandomTensor<float>({13, 127}, -1, 1, 2)})
      .Output("Y")
      .Attr("axis", 1);
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
