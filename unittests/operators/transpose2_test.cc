#include <numeric>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;
using framework::DDim;
using framework::Tensor;

// Naive reference: for every output index, read X at the permuted index.
template <typename T>
Tensor ReferenceTranspose(const Tensor& x, const std::vector<int32_t>& axis) {
  const DDim& xd = x.dims();
  const int rank = static_cast<int>(xd.size());
  DDim od(rank);
  for (int i = 0; i < rank; ++i)
    od[i] = xd[axis[i] < 0 ? axis[i] + rank : axis[i]];
  std::vector<T> in = ToVector<T>(x);
  std::vector<T> out(in.size());
  std::vector<int64_t> oi(rank, 0);
  for (size_t n = 0; n < out.size(); ++n) {
    int64_t rest = static_cast<int64_t>(n);
    for (int d = rank - 1; d >= 0; --d) {
      oi[d] = rest % od[d];
      rest /= od[d];
    }
    std::vector<int64_t> xi(rank);
    for (int d = 0; d < rank; ++d) {
      xi[axis[d] < 0 ? axis[d] + rank : axis[d]] = oi[d];
    }
    int64_t off = 0;
    for (int d = 0; d < rank; ++d) off = off * xd[d] + xi[d];
    out[n] = in[off];
  }
  return MakeTensor<T>(od, out);
}

template <typename T>
void Check(const Tensor& x,
           const std::vector<int32_t>& axis,
           DataType dtype = DataType::kFloat32) {
  OpTester t("transpose2");
  t.Input("X", x).Output("Out", dtype).Attr("axis", axis);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), ReferenceTranspose<T>(x, axis), 0, 0);
}

TEST(Transpose2Op, ByHand) {
  OpTester t("transpose2");
  t.Input("X", MakeTensor<float>({2, 3}, {0, 1, 2, 3, 4, 5}))
      .Output("Out")
      .Attr("axis", std::vector<int32_t>{1, 0});
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({3, 2}, {0, 3, 1, 4, 2, 5}), 0, 0);
}

TEST(Transpose2Op, MatchesReference) {
  Check<float>(RandomTensor<float>({2, 3, 4}), {2, 0, 1});
  Check<float>(RandomTensor<float>({2, 3, 4}), {0, 2, 1});
  Check<float>(RandomTensor<float>({2, 3, 4}), {1, 0, 2});
  Check<float>(RandomTensor<float>({13, 127}), {1, 0});
  Check<double>(RandomTensor<double>({3, 1, 5, 7}), {0, 3, 1, 2},
                DataType::kFloat64);
  Check<float>(RandomTensor<float>({2, 3, 1, 4, 2, 3}), {5, 3, 1, 0, 4, 2});
}

TEST(Transpose2Op, EdgeShapes) {
  Check<float>(RandomTensor<float>({13}), {0});
  Check<float>(MakeTensor<float>({1}, {4}), {0});
  Check<float>(MakeTensor<float>({}, {4}), {});
  Check<float>(MakeTensor<float>({2, 0, 3}, {}), {2, 1, 0});
}

TEST(Transpose2Op, NegativeAxesNormalized) {
  Check<float>(RandomTensor<float>({2, 3, 4}), {-1, 0, -2});
}

TEST(Transpose2Op, IntAndBoolData) {
  Check<int64_t>(
      MakeTensor<int64_t>({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, int64_t(1) << 40}),
      {2, 1, 0}, DataType::kInt64);
  Check<int32_t>(MakeTensor<int32_t>({3, 2}, {1, 2, 3, 4, 5, 6}), {1, 0},
                 DataType::kInt32);
  Check<bool>(MakeTensor<bool>({2, 3}, {true, false, false, true, true, false}),
              {1, 0}, DataType::kBool);
}

TEST(Transpose2Op, LoDKeptOnlyWhenDimZeroStays) {
  const framework::LoD lod = {{0, 1, 3}};
  OpTester keep("transpose2");
  keep.Input("X", MakeTensor<float>({3, 1, 2}, {0, 1, 2, 3, 4, 5}, lod))
      .Output("Out")
      .Attr("axis", std::vector<int32_t>{0, 2, 1});
  keep.Run();
  EXPECT_EQ(keep.GetOutput("Out").lod(), lod);

  OpTester drop("transpose2");
  drop.Input("X", MakeTensor<float>({3, 2}, {0, 1, 2, 3, 4, 5}, lod))
      .Output("Out")
      .Attr("axis", std::vector<int32_t>{1, 0});
  drop.Run();
  EXPECT_TRUE(drop.GetOutput("Out").lod().empty());
}

TEST(Transpose2Op, BadPermutation) {
  auto run = [](std::vector<int32_t> axis) {
    return [axis] {
      OpTester t("transpose2");
      t.Input("X", RandomTensor<float>({2, 3, 4}))
          .Output("Out")
          .Attr("axis", axis);
      t.Run();
    };
  };
  ExpectError(run({0, 0, 1}), ErrorCode::kInvalidArgument,
              {"transpose2", "[0, 0, 1]", "permutation", "[2, 3, 4]"});
  ExpectError(run({0, 1, 3}), ErrorCode::kInvalidArgument,
              {"transpose2", "[0, 1, 3]", "permutation"});
  ExpectError(run({0, 1}), ErrorCode::kInvalidArgument,
              {"transpose2", "[0, 1]", "rank 3"});
  ExpectError(
      [] {
        OpTester t("transpose2");
        t.Input("X", RandomTensor<float>({2, 3})).Output("Out");
        t.Run();
      },
      ErrorCode::kInvalidArgument, {"axis"});
}

TEST(Transpose2Op, MultiThreaded) {
  Tensor x = RandomTensor<float>({4, 127, 13});
  OpTester t("transpose2");
  t.Input("X", x).Output("Out").Attr("axis", std::vector<int32_t>{2, 0, 1});
  t.Run(framework::LibraryType::Plain(), /*threads=*/2);
  ExpectTensorNear(t.GetOutput("Out"), ReferenceTranspose<float>(x, {2, 0, 1}),
                   0, 0);
}

TEST(Transpose2Op, AllKernelsAgree) {
  OpTester t("transpose2");
  t.Input("X", RandomTensor<float>({2, 13, 127}))
      .Output("Out")
      .Attr("axis", std::vector<int32_t>{2, 0, 1});
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
