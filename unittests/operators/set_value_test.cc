#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;
using framework::DDim;
using framework::Scalar;
using framework::Tensor;

using Longs = std::vector<int64_t>;

// 0, 1, 2, ... laid out in `dims`.
template <typename T = float>
Tensor Arange(const DDim& dims) {
  std::vector<T> v(framework::Product(dims));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(i);
  return MakeTensor<T>(dims, v);
}

// A set_value op on `input` writing in place (Out is Input's variable).
OpTester SetValue(const Tensor& input,
                  const Longs& axes,
                  const Longs& starts,
                  const Longs& ends,
                  const Longs& steps) {
  OpTester t("set_value");
  t.Input("Input", input)
      .AliasOutputToInput("Out", "Input")
      .Attr("axes", axes)
      .Attr("starts", starts)
      .Attr("ends", ends)
      .Attr("steps", steps);
  return t;
}

// The same with the value given as float32 attribute values.
OpTester SetValueAttr(const Tensor& input,
                      const Longs& axes,
                      const Longs& starts,
                      const Longs& ends,
                      const Longs& steps,
                      const Longs& shape,
                      const std::vector<float>& values) {
  OpTester t = SetValue(input, axes, starts, ends, steps);
  t.Attr("shape", shape).Attr("fp32_values", values);
  return t;
}

// Expected result: `input` with value[n] written, in row-major order, at
// the positions indexes[0][i0], indexes[1][i1], ... (one list of chosen
// indexes per dim, derived by hand in each test).
std::vector<float> Written(const Tensor& input,
                           const std::vector<std::vector<int64_t>>& indexes,
                           const std::vector<float>& value) {
  std::vector<float> out = ToVector<float>(input);
  const DDim& dims = input.dims();
  std::vector<size_t> at(dims.size(), 0);
  size_t n = 0;
  while (true) {
    int64_t offset = 0;
    for (size_t d = 0; d < dims.size(); ++d) {
      offset = offset * dims[d] + indexes[d][at[d]];
    }
    out[offset] = value[n++];
    int d = static_cast<int>(dims.size()) - 1;
    for (; d >= 0; --d) {
      if (++at[d] < indexes[d].size()) break;
      at[d] = 0;
    }
    if (d < 0) break;
  }
  return out;
}

TEST(SetValueOp, RowInPlaceFromAttributes) {
  Tensor x = Arange({3, 4});
  // x[1] = [9, 8, 7, 6]
  OpTester t = SetValueAttr(x, {0}, {1}, {2}, {1}, {4}, {9, 8, 7, 6});
  t.Attr("decrease_axes", Longs{0});
  t.Run();
  ExpectTensorNear(
      t.GetOutput("Out"),
      MakeTensor<float>({3, 4}, {0, 1, 2, 3, 9, 8, 7, 6, 8, 9, 10, 11}), 0, 0);
}

TEST(SetValueOp, SeparateOutputGetsACopy) {
  OpTester t("set_value");
  t.Input("Input", Arange({2, 3}))
      .Input("ValueTensor", MakeTensor<float>({1}, {-1}))
      .Output("Out")
      .Attr("axes", Longs{1})
      .Attr("starts", Longs{-1})
      .Attr("ends", Longs{3})
      .Attr("steps", Longs{1});
  t.Run();  // x[:, -1:] = -1 into a new tensor
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({2, 3}, {0, 1, -1, 3, 4, -1}), 0, 0);
}

// A step past the axis takes the start alone, however large: no overflow
// in the region's size or the strides (found by auditing for the fuzzer).
TEST(SetValueOp, StepsPastTheAxisTakeTheStartAlone) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  const Tensor x = Arange({2, 8});
  // x[1::INT64_MAX, 3] = -1 and x[1::2^61, 3] = -1
  for (int64_t step : {kMax, int64_t{1} << 61}) {
    OpTester t =
        SetValueAttr(x, {0, 1}, {1, 3}, {2, 4}, {step, 1}, {1, 1}, {-1});
    t.Run();
    EXPECT_EQ(ToVector<float>(t.GetOutput("Out")),
              Written(x, {{1}, {3}}, {-1}));
  }
  // x[:, 7:0:INT64_MIN] = -1: index 7 only.
  OpTester t = SetValueAttr(x, {1}, {7}, {0}, {kMin}, {2, 1}, {-1, -2});
  t.Run();
  EXPECT_EQ(ToVector<float>(t.GetOutput("Out")),
            Written(x, {{0, 1}, {7}}, {-1, -2}));
}

TEST(SetValueOp, NegativeSteps) {
  Tensor x = Arange({6});
  {
    // x[4:0:-2] = [10, 20]: indexes 4, 2.
    OpTester t = SetValueAttr(x, {0}, {4}, {0}, {-2}, {2}, {10, 20});
    t.Run();
    ExpectTensorNear(t.GetOutput("Out"),
                     MakeTensor<float>({6}, {0, 1, 20, 3, 10, 5}), 0, 0);
  }
  {
    // start -1 is index 5; end -1 means "through index 0" with a negative
    // step, and an end below -D is clamped there too.
    for (int64_t end : {int64_t{-1}, int64_t{-100}}) {
      OpTester t = SetValueAttr(x, {0}, {-1}, {end}, {-1}, {6},
                                {10, 11, 12, 13, 14, 15});
      t.Run();
      ExpectTensorNear(t.GetOutput("Out"),
                       MakeTensor<float>({6}, {15, 14, 13, 12, 11, 10}), 0, 0);
    }
  }
  {
    // A start past the end is clamped to D - 1: x[100:2:-3] = indexes 5.
    OpTester t = SetValueAttr(x, {0}, {100}, {2}, {-3}, {1}, {-5});
    t.Run();
    ExpectTensorNear(t.GetOutput("Out"),
                     MakeTensor<float>({6}, {0, 1, 2, 3, 4, -5}), 0, 0);
  }
}

TEST(SetValueOp, StridedRegionsMatchReference) {
  Tensor x = Arange({4, 5, 6});
  // x[3:0:-2, ::2, -1:-7:-4] — indexes {3, 1}, {0, 2, 4}, {5, 1}.
  std::vector<float> value(12);
  std::iota(value.begin(), value.end(), 100.0f);
  OpTester t = SetValueAttr(x, {0, 1, 2}, {3, 0, -1}, {0, 5, -7}, {-2, 2, -4},
                            {2, 3, 2}, value);
  t.Run();
  ExpectTensorNear(
      t.GetOutput("Out"),
      MakeTensor<float>({4, 5, 6},
                        Written(x, {{3, 1}, {0, 2, 4}, {5, 1}}, value)),
      0, 0);
  // Axes in any order, negative axis numbers: x[:, 1:13:5, 4] on axes
  // [2, -2] with the value broadcast along dim 0.
  OpTester u = SetValueAttr(x, {2, -2}, {4, 1}, {5, 13}, {1, 5}, {1, 1}, {-9});
  u.Run();
  ExpectTensorNear(
      u.GetOutput("Out"),
      MakeTensor<float>({4, 5, 6}, Written(x, {{0, 1, 2, 3}, {1}, {4}},
                                           std::vector<float>(4, -9))),
      0, 0);
}

TEST(SetValueOp, DecreaseAxes) {
  // x[:, 1] = [7, 8, 9]: the value has no dim for axis 1.
  Tensor x = Arange({3, 4});
  OpTester t("set_value");
  t.Input("Input", x)
      .Input("ValueTensor", MakeTensor<float>({3}, {7, 8, 9}))
      .AliasOutputToInput("Out", "Input")
      .Attr("axes", Longs{1})
      .Attr("starts", Longs{1})
      .Attr("ends", Longs{2})
      .Attr("steps", Longs{1})
      .Attr("decrease_axes", Longs{1});
  t.Run();
  ExpectTensorNear(
      t.GetOutput("Out"),
      MakeTensor<float>({3, 4}, Written(x, {{0, 1, 2}, {1}}, {7, 8, 9})), 0, 0);
  // Without decrease_axes the region is [3, 1] and a [3] value no longer
  // fits it (it aligns with the trailing 1).
  OpTester u("set_value");
  u.Input("Input", x)
      .Input("ValueTensor", MakeTensor<float>({3}, {7, 8, 9}))
      .AliasOutputToInput("Out", "Input")
      .Attr("axes", Longs{1})
      .Attr("starts", Longs{1})
      .Attr("ends", Longs{2})
      .Attr("steps", Longs{1});
  ExpectError([&] { u.Run(); }, ErrorCode::kInvalidArgument,
              {"set_value", "[3]", "[3, 1]"});
}

TEST(SetValueOp, NoneAxes) {
  // x[None, 1] = column [3, 1] value: none_axes [2] appends a size-1 dim
  // after the decreased region [3] -> [3, 1], so the column fits.
  Tensor x = Arange({2, 3});
  auto make = [&](bool with_none) {
    OpTester t("set_value");
    t.Input("Input", x)
        .Input("ValueTensor", MakeTensor<float>({3, 1}, {-1, -2, -3}))
        .AliasOutputToInput("Out", "Input")
        .Attr("axes", Longs{0})
        .Attr("starts", Longs{1})
        .Attr("ends", Longs{2})
        .Attr("steps", Longs{1})
        .Attr("decrease_axes", Longs{0});
    if (with_none) t.Attr("none_axes", Longs{2});
    return t;
  };
  OpTester t = make(true);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({2, 3}, {0, 1, 2, -1, -2, -3}), 0, 0);
  OpTester u = make(false);
  ExpectError([&] { u.Run(); }, ErrorCode::kInvalidArgument,
              {"set_value", "[3, 1]", "[3]"});
}

TEST(SetValueOp, BroadcastValues) {
  Tensor x = Arange({3, 4});
  const std::vector<std::vector<int64_t>> rows01 = {{0, 1}, {0, 1, 2, 3}};
  {
    // x[0:2] = [1, 2, 3, 4]: one row for both.
    OpTester t = SetValueAttr(x, {0}, {0}, {2}, {1}, {4}, {1, 2, 3, 4});
    t.Run();
    ExpectTensorNear(
        t.GetOutput("Out"),
        MakeTensor<float>({3, 4}, Written(x, rows01, {1, 2, 3, 4, 1, 2, 3, 4})),
        0, 0);
  }
  {
    // A [2, 1] column repeats along the row.
    OpTester t = SetValueAttr(x, {0}, {0}, {2}, {1}, {2, 1}, {5, 6});
    t.Run();
    ExpectTensorNear(
        t.GetOutput("Out"),
        MakeTensor<float>({3, 4}, Written(x, rows01, {5, 5, 5, 5, 6, 6, 6, 6})),
        0, 0);
  }
  {
    // Leading 1s of the value are ignored.
    OpTester t = SetValueAttr(x, {0}, {0}, {2}, {1}, {1, 1, 4}, {1, 2, 3, 4});
    t.Run();
    ExpectTensorNear(
        t.GetOutput("Out"),
        MakeTensor<float>({3, 4}, Written(x, rows01, {1, 2, 3, 4, 1, 2, 3, 4})),
        0, 0);
  }
  {
    // A scalar fills the region; shape [] holds one value.
    OpTester t = SetValueAttr(x, {1}, {1}, {4}, {2}, {}, {0.5f});
    t.Run();
    ExpectTensorNear(
        t.GetOutput("Out"),
        MakeTensor<float>({3, 4}, Written(x, {{0, 1, 2}, {1, 3}},
                                          std::vector<float>(6, 0.5f))),
        0, 0);
  }
  ExpectError(
      [&] {
        OpTester t = SetValueAttr(x, {0}, {0}, {2}, {1}, {3}, {1, 2, 3});
        t.Run();
      },
      ErrorCode::kInvalidArgument, {"set_value", "[3]", "[2, 4]"});
  ExpectError(
      [&] {
        OpTester t = SetValueAttr(x, {0}, {0}, {1}, {1}, {2, 4},
                                  {1, 2, 3, 4, 5, 6, 7, 8});
        t.Run();
      },
      ErrorCode::kInvalidArgument, {"set_value", "[2, 4]", "[1, 4]"});
}

TEST(SetValueOp, EmptyRegionLeavesInputUnchanged) {
  Tensor x = Arange({3, 4});
  // x[2:2] and x[5:] select nothing: any value shape is accepted.
  for (auto [start, end] :
       std::vector<std::pair<int64_t, int64_t>>{{2, 2}, {5, 10}}) {
    OpTester t =
        SetValueAttr(x, {0}, {start}, {end}, {1}, {7}, {1, 1, 1, 1, 1, 1, 1});
    t.Run();
    ExpectTensorNear(t.GetOutput("Out"), x, 0, 0);
  }
  // An empty input.
  OpTester e = SetValueAttr(Arange({0, 4}), {1}, {0}, {2}, {1}, {1}, {1});
  e.Run();
  EXPECT_EQ(e.GetOutput("Out").dims(), (DDim{0, 4}));
}

TEST(SetValueOp, TensorListsOverrideAttributes) {
  // As SLANet saves it: starts and ends come from 1-element tensors,
  // the attributes are empty and steps is [1].
  Tensor x = Arange({2, 5});
  OpTester t("set_value");
  t.Input("Input", x)
      .Input("ValueTensor", MakeTensor<float>({2}, {-1, -2}))
      .Inputs("StartsTensorList", {MakeTensor<int64_t>({1}, {3})})
      .Inputs("EndsTensorList", {MakeTensor<int32_t>({1}, {4})})
      .AliasOutputToInput("Out", "Input")
      .Attr("axes", Longs{1})
      .Attr("starts", Longs{})
      .Attr("ends", Longs{})
      .Attr("steps", Longs{1})
      .Attr("decrease_axes", Longs{1});
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({2, 5}, {0, 1, 2, -1, 4, 5, 6, 7, -2, 9}),
                   0, 0);
  // StepsTensorList wins over the steps attribute.
  OpTester s = SetValueAttr(x, {1}, {4}, {0}, {1}, {1}, {-3});
  s.Inputs("StepsTensorList", {MakeTensor<int64_t>({1}, {-2})});
  s.Run();  // x[:, 4:0:-2] = -3: columns 4, 2
  ExpectTensorNear(
      s.GetOutput("Out"),
      MakeTensor<float>({2, 5}, {0, 1, -3, 3, -3, 5, 6, -3, 8, -3}), 0, 0);
}

TEST(SetValueOp, ValueTypesAndListAttributes) {
  {
    const int64_t big = (int64_t(1) << 60) + 1;
    OpTester t = SetValue(Arange<int64_t>({3}), {0}, {1}, {2}, {1});
    t.Attr("dtype", static_cast<int32_t>(DataType::kInt64))
        .Attr("shape", Longs{1})
        .Attr("int64_values", Longs{big});
    t.Run();
    EXPECT_EQ(ToVector<int64_t>(t.GetOutput("Out")),
              (std::vector<int64_t>{0, big, 2}));
  }
  {
    OpTester t = SetValue(MakeTensor<bool>({3}, {false, false, false}), {0},
                          {0}, {3}, {2});
    t.Attr("dtype", static_cast<int32_t>(DataType::kBool))
        .Attr("shape", Longs{1})
        .Attr("bool_values", std::vector<int32_t>{1});
    t.Run();
    ExpectTensorNear(t.GetOutput("Out"),
                     MakeTensor<bool>({3}, {true, false, true}), 0, 0);
  }
  {
    OpTester t = SetValue(Arange<double>({2}), {0}, {0}, {1}, {1});
    t.Attr("dtype", static_cast<int32_t>(DataType::kFloat64))
        .Attr("shape", Longs{1})
        .Attr("fp64_values", std::vector<double>{0.1});
    t.Run();
    ExpectTensorNear(t.GetOutput("Out"), MakeTensor<double>({2}, {0.1, 1}), 0,
                     0);
  }
  {
    // 2.5+ SCALARS; int32 values written into a float32 tensor.
    Scalar s;
    s.kind = Scalar::kInt64;
    s.i = 42;
    OpTester t = SetValue(Arange({2}), {0}, {1}, {2}, {1});
    t.Attr("dtype", static_cast<int32_t>(DataType::kInt32))
        .Attr("shape", Longs{1})
        .Attr("values", std::vector<Scalar>{s});
    t.Run();
    ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({2}, {0, 42}), 0, 0);
    OpTester u = SetValue(Arange({2}), {0}, {1}, {2}, {1});
    u.Attr("dtype", static_cast<int32_t>(DataType::kInt32))
        .Attr("shape", Longs{1})
        .Attr("int32_values", std::vector<int32_t>{-8});
    u.Run();
    ExpectTensorNear(u.GetOutput("Out"), MakeTensor<float>({2}, {0, -8}), 0, 0);
  }
  {
    OpTester t("set_value");
    t.Input("Input", Arange<int16_t>({4}))
        .Input("ValueTensor", MakeTensor<int16_t>({2}, {-7, 300}))
        .AliasOutputToInput("Out", "Input")
        .Attr("axes", Longs{0})
        .Attr("starts", Longs{0})
        .Attr("ends", Longs{4})
        .Attr("steps", Longs{2});
    t.Run();
    ExpectTensorNear(t.GetOutput("Out"),
                     MakeTensor<int16_t>({4}, {-7, 1, 300, 3}), 0, 0);
  }
}

TEST(SetValueOp, ZeroDInput) {
  OpTester t =
      SetValueAttr(MakeTensor<float>({}, {1}), {}, {}, {}, {}, {1}, {5});
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({}, {5}), 0, 0);
}

TEST(SetValueOp, Errors) {
  Tensor x = Arange({3, 4});
  ExpectError([&] { SetValueAttr(x, {0}, {0}, {2}, {0}, {1}, {1}).Run(); },
              ErrorCode::kInvalidArgument,
              {"set_value", "steps [0]", "axis 0"});
  ExpectError([&] { SetValueAttr(x, {0}, {2}, {1}, {1}, {1}, {1}).Run(); },
              ErrorCode::kInvalidArgument,
              {"set_value", "axis 0", "[3, 4]", "end 1", "start 2"});
  ExpectError([&] { SetValueAttr(x, {1}, {0}, {2}, {-1}, {1}, {1}).Run(); },
              ErrorCode::kInvalidArgument,
              {"set_value", "axis 1", "negative step -1", "start 0"});
  ExpectError([&] { SetValueAttr(x, {2}, {0}, {1}, {1}, {1}, {1}).Run(); },
              ErrorCode::kInvalidArgument, {"set_value", "axes = 2", "rank-2"});
  ExpectError(
      [&] {
        SetValueAttr(x, {0, 1}, {0}, {1, 1}, {1, 1}, {1}, {1}).Run();
      },
      ErrorCode::kInvalidArgument, {"set_value", "starts [0]", "same length"});
  ExpectError(
      [&] {
        OpTester t = SetValueAttr(x, {0}, {0}, {2}, {1}, {4}, {1, 2, 3, 4});
        t.Attr("decrease_axes", Longs{0});
        t.Run();
      },
      ErrorCode::kInvalidArgument,
      {"set_value", "decrease_axes", "axis 0", "[2, 4]"});
  ExpectError(
      [&] {
        SetValueAttr(x, {0}, {0}, {1}, {1}, {2, 2}, {1, 2, 3}).Run();
      },
      ErrorCode::kInvalidArgument,
      {"set_value", "[2, 2]", "needs 4", "fp32_values holds 3"});
  ExpectError(
      [&] {
        OpTester t = SetValue(x, {0}, {0}, {1}, {1});
        t.Input("ValueTensor", MakeTensor<double>({1}, {1}));
        t.Run();
      },
      ErrorCode::kInvalidArgument,
      {"set_value", "ValueTensor", "float64", "float32"});
  ExpectError(
      [&] {
        OpTester t = SetValue(x, {0}, {0}, {1}, {1});
        t.Inputs("StartsTensorList", {MakeTensor<int64_t>({2}, {0, 1})});
        t.Attr("fp32_values", std::vector<float>{1}).Attr("shape", Longs{1});
        t.Run();
      },
      ErrorCode::kInvalidArgument,
      {"set_value", "StartsTensorList", "one value"});
}

TEST(SetValueOp, RunAllKernels) {
  OpTester t("set_value");
  t.Input("Input", RandomTensor<float>({13, 127}))
      .Input("ValueTensor", RandomTensor<float>({127}, -1, 1, 5))
      .AliasOutputToInput("Out", "Input")
      .Attr("axes", Longs{0})
      .Attr("starts", Longs{12})
      .Attr("ends", Longs{-14})
      .Attr("steps", Longs{-3});
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
