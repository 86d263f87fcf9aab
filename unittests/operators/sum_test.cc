#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;

TEST(SumOp, OneInputIsACopy) {
  OpTester t("sum");
  t.Inputs("X", {MakeTensor<float>({2, 2}, {1, 2, 3, 4}, {{0, 1, 2}})})
      .Output("Out");
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({2, 2}, {1, 2, 3, 4}, {{0, 1, 2}}));
}

TEST(SumOp, ThreeInputs) {
  OpTester t("sum");
  t.Inputs("X", {MakeTensor<float>({3}, {1, 2, 3}),
                 MakeTensor<float>({3}, {10, 20, 30}),
                 MakeTensor<float>({3}, {100, 200, 300})})
      .Output("Out");
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({3}, {111, 222, 333}));
}

TEST(SumOp, LargeInputsTwoThreadsAndIntegers) {
  const framework::DDim dims = {13, 127};
  auto a = ToVector<double>(RandomTensor<double>(dims, -1, 1, 1));
  auto b = ToVector<double>(RandomTensor<double>(dims, -1, 1, 2));
  std::vector<double> expected(a.size());
  for (size_t i = 0; i < a.size(); ++i) expected[i] = a[i] + b[i];
  OpTester t("sum");
  t.Inputs("X", {MakeTensor<double>(dims, a), MakeTensor<double>(dims, b)})
      .Output("Out", DataType::kFloat64);
  t.Run(framework::LibraryType::Plain(), /*threads=*/2);
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<double>(dims, expected));

  OpTester i("sum");
  i.Inputs("X", {MakeTensor<int64_t>({2}, {1ll << 40, -3}),
                 MakeTensor<int64_t>({2}, {1, 3})})
      .Output("Out", DataType::kInt64);
  i.Run();
  ExpectTensorNear(i.GetOutput("Out"),
                   MakeTensor<int64_t>({2}, {(1ll << 40) + 1, 0}));
}

TEST(SumOp, EmptyTensors) {
  OpTester t("sum");
  t.Inputs("X", {MakeTensor<float>({0, 2}, {}), MakeTensor<float>({0, 2}, {})})
      .Output("Out");
  t.Run();
  EXPECT_EQ(t.GetOutput("Out").dims(), (framework::DDim{0, 2}));
}

TEST(SumOp, RunAllKernels) {
  OpTester t("sum");
  t.Inputs("X", {RandomTensor<float>({5, 7}, -1, 1, 1),
                 RandomTensor<float>({5, 7}, -1, 1, 2),
                 RandomTensor<float>({5, 7}, -1, 1, 3)})
      .Output("Out");
  t.RunAllKernels();
}

TEST(SumOp, Errors) {
  {
    OpTester t("sum");
    t.Inputs("X", {RandomTensor<float>({2, 3}), RandomTensor<float>({3})})
        .Output("Out");
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"sum", "[2, 3]", "X[1]", "[3]", "no broadcasting"});
  }
  {
    OpTester t("sum");
    t.Inputs("X", {RandomTensor<float>({2}), MakeTensor<int32_t>({2}, {1, 2})})
        .Output("Out");
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"sum", "float32", "int32"});
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
