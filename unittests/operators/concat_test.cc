#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;
using framework::DDim;
using framework::Tensor;

// Naive reference along a non-negative axis: Out[o, :] = rows of every
// input at outer index o, one after another.
template <typename T>
Tensor ReferenceConcat(const std::vector<Tensor>& xs, int axis) {
  std::vector<const Tensor*> used;
  for (auto& x : xs) {
    if (x.numel() > 0) used.push_back(&x);
  }
  DDim od = used[0]->dims();
  od[axis] = 0;
  for (auto* x : used) od[axis] += x->dims()[axis];
  const int64_t outer = framework::Product(od, 0, axis);
  std::vector<T> out;
  for (int64_t o = 0; o < outer; ++o) {
    for (auto* x : used) {
      const int64_t row = x->numel() / outer;
      std::vector<T> v = ToVector<T>(*x);
      out.insert(out.end(), v.begin() + o * row, v.begin() + (o + 1) * row);
    }
  }
  return MakeTensor<T>(od, out);
}

Tensor Concat(const std::vector<Tensor>& xs,
              int axis,
              DataType dtype = DataType::kFloat32) {
  OpTester t("concat");
  t.Inputs("X", xs).Output("Out", dtype).Attr("axis", axis);
  t.Run();
  return t.GetOutput("Out");
}

TEST(ConcatOp, ByHand) {
  std::vector<Tensor> xs = {MakeTensor<float>({2, 1}, {1, 2}),
                            MakeTensor<float>({2, 2}, {3, 4, 5, 6})};
  ExpectTensorNear(Concat(xs, 1), MakeTensor<float>({2, 3}, {1, 3, 4, 2, 5, 6}),
                   0, 0);
  ExpectTensorNear(Concat({xs[1], xs[1]}, 0),
                   MakeTensor<float>({4, 2}, {3, 4, 5, 6, 3, 4, 5, 6}), 0, 0);
}

TEST(ConcatOp, DefaultAxisIsZero) {
  OpTester t("concat");
  t.Inputs("X", {MakeTensor<float>({1, 2}, {1, 2}),
                 MakeTensor<float>({1, 2}, {3, 4})})
      .Output("Out");
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({2, 2}, {1, 2, 3, 4}),
                   0, 0);
}

TEST(ConcatOp, MatchesReference) {
  std::vector<Tensor> xs = {RandomTensor<float>({2, 3, 4}, -1, 1, 1),
                            RandomTensor<float>({2, 5, 4}, -1, 1, 2),
                            RandomTensor<float>({2, 1, 4}, -1, 1, 3)};
  ExpectTensorNear(Concat(xs, 1), ReferenceConcat<float>(xs, 1), 0, 0);
  ExpectTensorNear(Concat(xs, -2), ReferenceConcat<float>(xs, 1), 0, 0);
  std::vector<Tensor> ys = {RandomTensor<float>({13, 127, 2}, -1, 1, 4),
                            RandomTensor<float>({13, 127, 1}, -1, 1, 5)};
  ExpectTensorNear(Concat(ys, -1), ReferenceConcat<float>(ys, 2), 0, 0);
  std::vector<Tensor> one = {RandomTensor<float>({1}, -1, 1, 6)};
  ExpectTensorNear(Concat(one, 0), one[0], 0, 0);
  std::vector<Tensor> six = {RandomTensor<float>({1, 2, 1, 3, 2, 2}, -1, 1, 7),
                             RandomTensor<float>({1, 2, 1, 3, 1, 2}, -1, 1, 8)};
  ExpectTensorNear(Concat(six, 4), ReferenceConcat<float>(six, 4), 0, 0);
}

TEST(ConcatOp, AxisTensorOverridesAttribute) {
  std::vector<Tensor> xs = {RandomTensor<float>({2, 3}, -1, 1, 1),
                            RandomTensor<float>({2, 3}, -1, 1, 2)};
  for (bool use_int64 : {false, true}) {
    OpTester t("concat");
    t.Inputs("X", xs)
        .Input("AxisTensor", use_int64 ? MakeTensor<int64_t>({1}, {-1})
                                       : MakeTensor<int32_t>({1}, {1}))
        .Output("Out")
        .Attr("axis", 0);
    t.Run();
    ExpectTensorNear(t.GetOutput("Out"), ReferenceConcat<float>(xs, 1), 0, 0);
  }
}

TEST(ConcatOp, ZeroSizeInputsAreSkipped) {
  Tensor a = MakeTensor<float>({2, 2}, {1, 2, 3, 4});
  Tensor b = MakeTensor<float>({1, 2}, {5, 6});
  ExpectTensorNear(Concat({MakeTensor<float>({0, 2}, {}), a, b}, 0),
                   MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}), 0, 0);
  // Skipped inputs may even disagree in other dims or rank.
  ExpectTensorNear(
      Concat({a, MakeTensor<float>({0}, {}), b, MakeTensor<float>({0, 7}, {})},
             0),
      MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}), 0, 0);
  EXPECT_EQ(
      Concat({MakeTensor<float>({0, 3}, {}), MakeTensor<float>({0, 3}, {})}, 1)
          .dims(),
      (DDim{0, 6}));
}

TEST(ConcatOp, IntAndBoolData) {
  std::vector<Tensor> xs = {MakeTensor<int64_t>({1, 2}, {1, int64_t(1) << 45}),
                            MakeTensor<int64_t>({1, 1}, {-3})};
  ExpectTensorNear(Concat(xs, 1, DataType::kInt64),
                   MakeTensor<int64_t>({1, 3}, {1, int64_t(1) << 45, -3}), 0,
                   0);
  std::vector<Tensor> bs = {MakeTensor<bool>({2}, {true, false}),
                            MakeTensor<bool>({1}, {true})};
  ExpectTensorNear(Concat(bs, 0, DataType::kBool),
                   MakeTensor<bool>({3}, {true, false, true}), 0, 0);
}

TEST(ConcatOp, LoDChainedAlongAxisZero) {
  std::vector<Tensor> xs = {MakeTensor<float>({3, 1}, {1, 2, 3}, {{0, 1, 3}}),
                            MakeTensor<float>({2, 1}, {4, 5}, {{0, 2}})};
  ExpectTensorNear(Concat(xs, 0),
                   MakeTensor<float>({5, 1}, {1, 2, 3, 4, 5}, {{0, 1, 3, 5}}),
                   0, 0);
  // Along another axis Out keeps X[0]'s LoD.
  std::vector<Tensor> ys = {MakeTensor<float>({2, 1}, {1, 2}, {{0, 2}}),
                            MakeTensor<float>({2, 1}, {3, 4})};
  EXPECT_EQ(Concat(ys, 1).lod(), (framework::LoD{{0, 2}}));
}

TEST(ConcatOp, Errors) {
  ExpectError(
      [] {
        Concat({MakeTensor<float>({2, 3}, std::vector<float>(6)),
                MakeTensor<float>({2, 4}, std::vector<float>(8))},
               0);
      },
      ErrorCode::kInvalidArgument, {"concat", "[2, 4]", "[2, 3]"});
  ExpectError(
      [] {
        Concat({MakeTensor<float>({2, 3}, std::vector<float>(6)),
                MakeTensor<float>({2, 3, 1}, std::vector<float>(6))},
               0);
      },
      ErrorCode::kInvalidArgument, {"concat", "[2, 3, 1]"});
  ExpectError(
      [] {
        Concat({MakeTensor<float>({2, 3}, std::vector<float>(6))}, 2);
      },
      ErrorCode::kInvalidArgument, {"concat", "axis = 2", "rank-2"});
  ExpectError(
      [] {
        Concat({MakeTensor<float>({2, 3}, std::vector<float>(6))}, -3);
      },
      ErrorCode::kInvalidArgument, {"concat", "axis = -3"});
}

TEST(ConcatOp, MultiThreaded) {
  std::vector<Tensor> xs = {RandomTensor<float>({127, 13}, -1, 1, 1),
                            RandomTensor<float>({127, 2}, -1, 1, 2)};
  OpTester t("concat");
  t.Inputs("X", xs).Output("Out").Attr("axis", 1);
  t.Run(framework::LibraryType::Plain(), /*threads=*/2);
  ExpectTensorNear(t.GetOutput("Out"), ReferenceConcat<float>(xs, 1), 0, 0);
}

TEST(ConcatOp, AllKernelsAgree) {
  OpTester t("concat");
  t.Inputs("X", {RandomTensor<float>({13, 127}, -1, 1, 1),
                 RandomTensor<float>({13, 3}, -1, 1, 2)})
      .Output("Out")
      .Attr("axis", 1);
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
