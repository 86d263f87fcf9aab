#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;

// [2, 3]: row maxima at 1 and 0 (the tie in row 1 keeps the first).
const std::vector<float> kX = {1, 5, 2, 7, 3, 7};

TEST(ArgMaxOp, AxisDefaultsAndTies) {
  OpTester t("arg_max");
  t.Input("X", MakeTensor<float>({2, 3}, kX))
      .Output("Out", DataType::kInt64)
      .Attr("axis", int64_t{1});
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<int64_t>({2}, {1, 0}));

  OpTester u("arg_max");
  u.Input("X", MakeTensor<float>({2, 3}, kX))
      .Output("Out", DataType::kInt64)
      .Attr("axis", int64_t{0});
  u.Run();
  ExpectTensorNear(u.GetOutput("Out"), MakeTensor<int64_t>({3}, {1, 0, 1}));
}

TEST(ArgMaxOp, NegativeAxisKeepdimsAndInt32) {
  OpTester t("arg_max");
  t.Input("X", MakeTensor<float>({2, 3}, kX))
      .Output("Out", DataType::kInt32)
      .Attr("axis", -1)
      .Attr("keepdims", true)
      .Attr("dtype", 2);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<int32_t>({2, 1}, {1, 0}));
}

TEST(ArgMaxOp, DtypeMinusOneIsInt64) {
  OpTester t("arg_max");
  t.Input("X", MakeTensor<int32_t>({4}, {3, -1, 9, 9}))
      .Output("Out", DataType::kInt64)
      .Attr("axis", 0)
      .Attr("dtype", -1);
  t.Run();
  // Reducing the only dim gives [1] (files of Paddle <= 2.4).
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<int64_t>({1}, {2}));
}

TEST(ArgMaxOp, Flatten) {
  for (bool keepdims : {false, true}) {
    OpTester t("arg_max");
    t.Input("X", MakeTensor<float>({2, 3}, kX))
        .Output("Out", DataType::kInt64)
        .Attr("axis", 0)
        .Attr("flatten", true)
        .Attr("keepdims", keepdims);
    t.Run();
    // Keeping dims keeps X's rank, each of size 1 (as Paddle does).
    ExpectTensorNear(
        t.GetOutput("Out"),
        MakeTensor<int64_t>(
            keepdims ? framework::DDim{1, 1} : framework::DDim{1}, {3}));
  }
}

TEST(ArgMaxOp, MiddleAxisMatchesNaive) {
  const framework::DDim dims = {3, 13, 5};
  auto x = ToVector<double>(RandomTensor<double>(dims, -1, 1, 4));
  std::vector<int64_t> expected;
  for (int a = 0; a < 3; ++a) {
    for (int c = 0; c < 5; ++c) {
      int best = 0;
      for (int b = 1; b < 13; ++b) {
        if (x[(a * 13 + b) * 5 + c] > x[(a * 13 + best) * 5 + c]) best = b;
      }
      expected.push_back(best);
    }
  }
  OpTester t("arg_max");
  t.Input("X", MakeTensor<double>(dims, x))
      .Output("Out", DataType::kInt64)
      .Attr("axis", int64_t{1})
      .Attr("keepdims", true);
  t.Run(framework::LibraryType::Plain(), /*threads=*/2);
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<int64_t>({3, 1, 5}, expected));
}

TEST(ArgMaxOp, SmallIntegerTypes) {
  OpTester t("arg_max");
  t.Input("X", MakeTensor<uint8_t>({1, 3}, {7, 255, 0}))
      .Output("Out", DataType::kInt64)
      .Attr("axis", 1);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<int64_t>({1}, {1}));

  OpTester u("arg_max");
  u.Input("X", MakeTensor<int64_t>({2, 1}, {-5, -9}))
      .Output("Out", DataType::kInt64)
      .Attr("axis", 1);
  u.Run();
  ExpectTensorNear(u.GetOutput("Out"), MakeTensor<int64_t>({2}, {0, 0}));
}

// A NaN never wins, wherever it is (Paddle's scan starts below every
// value); a row of NaNs only gives 0. Along a contiguous axis (the CUDA
// kernel's row path) and a strided one.
TEST(ArgMaxOp, NaNNeverWins) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> rows = {nan, 5,   6,   1,    //
                                   2,   nan, 9,   nan,  //
                                   nan, nan, nan, nan};
  for (int64_t axis : {int64_t{1}, int64_t{0}}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    OpTester t("arg_max");
    // Along axis 0 the rows are the columns of the transposed input.
    std::vector<float> x = rows;
    if (axis == 0) {
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 4; ++c) x[c * 3 + r] = rows[r * 4 + c];
      }
    }
    t.Input("X", axis == 1 ? MakeTensor<float>({3, 4}, x)
                           : MakeTensor<float>({4, 3}, x))
        .Output("Out", DataType::kInt64)
        .Attr("axis", axis);
    t.Run();
    ExpectTensorNear(t.GetOutput("Out"), MakeTensor<int64_t>({3}, {2, 2, 0}));
    t.RunAllKernels();
  }
}

TEST(ArgMaxOp, EmptyNonReducedDim) {
  OpTester t("arg_max");
  t.Input("X", MakeTensor<float>({0, 4}, {}))
      .Output("Out", DataType::kInt64)
      .Attr("axis", 1);
  t.Run();
  EXPECT_EQ(t.GetOutput("Out").dims(), (framework::DDim{0}));
}

TEST(ArgMaxOp, RunAllKernels) {
  OpTester t("arg_max");
  t.Input("X", RandomTensor<float>({4, 7, 3}))
      .Output("Out", DataType::kInt64)
      .Attr("axis", 1);
  t.RunAllKernels();
}

TEST(ArgMaxOp, Errors) {
  {
    OpTester t("arg_max");
    t.Input("X", MakeTensor<float>({2, 3}, kX))
        .Output("Out", DataType::kInt64)
        .Attr("axis", 2);
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"arg_max", "axis = 2", "[-2, 2)"});
  }
  {
    OpTester t("arg_max");
    t.Input("X", MakeTensor<float>({2, 3}, kX))
        .Output("Out", DataType::kInt64)
        .Attr("axis", 0)
        .Attr("dtype", 5);
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"arg_max", "dtype", "got 5"});
  }
  {
    OpTester t("arg_max");
    t.Input("X", MakeTensor<float>({3, 0}, {}))
        .Output("Out", DataType::kInt64)
        .Attr("axis", 1);
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"arg_max", "[3, 0]", "no elements along axis 1"});
  }
  {
    // axis is required: Paddle has no default for it.
    OpTester t("arg_max");
    t.Input("X", MakeTensor<float>({2, 3}, kX)).Output("Out", DataType::kInt64);
    EXPECT_THROW(t.Run(), Exception);
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
