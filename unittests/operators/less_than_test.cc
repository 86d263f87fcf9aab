#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;

TEST(LessThanOp, SameShapeFloat) {
  OpTester t("less_than");
  t.Input("X", MakeTensor<float>({4}, {1, 2, 3, -0.f}))
      .Input("Y", MakeTensor<float>({4}, {2, 2, 1, 0.f}))
      .Output("Out", DataType::kBool);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<bool>({4}, {true, false, false, false}));
}

TEST(LessThanOp, LoopConditionInt64) {
  // The typical while-loop condition: [1]-shaped int64 counters.
  OpTester t("less_than");
  t.Input("X", MakeTensor<int64_t>({1}, {(1ll << 40) - 1}))
      .Input("Y", MakeTensor<int64_t>({1}, {1ll << 40}))
      .Output("Out", DataType::kBool)
      .Attr("force_cpu", true);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<bool>({1}, {true}));
}

TEST(LessThanOp, BroadcastRightAlignedAndWithAxis) {
  // Y [3] against X [2, 3] (axis -1): compared per column.
  OpTester t("less_than");
  t.Input("X", MakeTensor<int32_t>({2, 3}, {1, 5, 3, 4, 2, 6}))
      .Input("Y", MakeTensor<int32_t>({3}, {2, 2, 6}))
      .Output("Out", DataType::kBool);
  t.Run();
  ExpectTensorNear(
      t.GetOutput("Out"),
      MakeTensor<bool>({2, 3}, {true, false, true, false, false, false}));

  // Y [2] with axis 0: compared per row.
  OpTester u("less_than");
  u.Input("X", MakeTensor<int32_t>({2, 3}, {1, 5, 3, 4, 2, 6}))
      .Input("Y", MakeTensor<int32_t>({2}, {3, 5}))
      .Output("Out", DataType::kBool)
      .Attr("axis", 0);
  u.Run();
  ExpectTensorNear(
      u.GetOutput("Out"),
      MakeTensor<bool>({2, 3}, {true, false, false, true, true, false}));

  // X is the smaller operand: [3, 1] against [1, 13] -> [3, 13].
  std::vector<double> y(13);
  for (int i = 0; i < 13; ++i) y[i] = i;
  std::vector<bool> expected;
  for (int r = 0; r < 3; ++r) {
    for (int i = 0; i < 13; ++i) expected.push_back(r * 5.0 < i);
  }
  OpTester v("less_than");
  v.Input("X", MakeTensor<double>({3, 1}, {0, 5, 10}))
      .Input("Y", MakeTensor<double>({1, 13}, y))
      .Output("Out", DataType::kBool);
  v.Run(framework::LibraryType::Plain(), /*threads=*/2);
  ExpectTensorNear(v.GetOutput("Out"), MakeTensor<bool>({3, 13}, expected));
}

TEST(LessThanOp, EmptyAndSmallTypes) {
  OpTester t("less_than");
  t.Input("X", MakeTensor<float>({0, 3}, {}))
      .Input("Y", MakeTensor<float>({3}, {1, 2, 3}))
      .Output("Out", DataType::kBool);
  t.Run();
  EXPECT_EQ(t.GetOutput("Out").dims(), (framework::DDim{0, 3}));

  OpTester u("less_than");
  u.Input("X", MakeTensor<uint8_t>({2}, {200, 3}))
      .Input("Y", MakeTensor<uint8_t>({2}, {255, 3}))
      .Output("Out", DataType::kBool);
  u.Run();
  ExpectTensorNear(u.GetOutput("Out"), MakeTensor<bool>({2}, {true, false}));
}

TEST(LessThanOp, RunAllKernels) {
  OpTester t("less_than");
  t.Input("X", RandomTensor<float>({4, 5}))
      .Input("Y", RandomTensor<float>({5}, -1, 1, 9))
      .Output("Out", DataType::kBool);
  t.RunAllKernels();
}

TEST(LessThanOp, Errors) {
  {
    OpTester t("less_than");
    t.Input("X", RandomTensor<float>({2, 3}))
        .Input("Y", RandomTensor<float>({2}))
        .Output("Out", DataType::kBool);
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"less_than", "[2, 3]", "[2]"});
  }
  {
    OpTester t("less_than");
    t.Input("X", MakeTensor<int64_t>({1}, {1}))
        .Input("Y", MakeTensor<int32_t>({1}, {1}))
        .Output("Out", DataType::kBool);
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"less_than", "int64", "int32"});
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
