#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;
using framework::DDim;
using framework::Tensor;

Tensor Fill(DataType dtype,
            const std::vector<int64_t>& shape,
            float value,
            const std::string& str_value = "") {
  OpTester t("fill_constant");
  t.Output("Out", dtype)
      .Attr("dtype", static_cast<int32_t>(dtype))
      .Attr("shape", shape)
      .Attr("value", value)
      .Attr("str_value", str_value);
  t.Run();
  return t.GetOutput("Out");
}

TEST(FillConstantOp, Defaults) {
  OpTester t("fill_constant");
  t.Output("Out");
  t.Run();  // dtype float32, shape [] (0-D), value 0
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({}, {0}), 0, 0);
}

TEST(FillConstantOp, ShapeAsIntsOrLongs) {
  ExpectTensorNear(Fill(DataType::kFloat32, {2, 3}, 1.5f),
                   MakeTensor<float>({2, 3}, std::vector<float>(6, 1.5f)), 0,
                   0);
  OpTester t("fill_constant");  // 1.x files store the shape as INTS
  t.Output("Out")
      .Attr("shape", std::vector<int32_t>{13, 1})
      .Attr("value", -2.0f);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({13, 1}, std::vector<float>(13, -2.0f)), 0,
                   0);
  EXPECT_EQ(Fill(DataType::kFloat32, {0, 4}, 1.0f).dims(), (DDim{0, 4}));
  EXPECT_EQ(Fill(DataType::kFloat32, {1, 1, 1, 1, 1, 127}, 1.0f).numel(), 127);
}

TEST(FillConstantOp, OutputTypes) {
  ExpectTensorNear(Fill(DataType::kFloat64, {2}, 0.1f),
                   MakeTensor<double>({2}, {0.1f, 0.1f}), 0, 0);
  ExpectTensorNear(Fill(DataType::kInt32, {3}, 7.9f),
                   MakeTensor<int32_t>({3}, {7, 7, 7}), 0, 0);
  ExpectTensorNear(Fill(DataType::kInt64, {1}, -3.0f),
                   MakeTensor<int64_t>({1}, {-3}), 0, 0);
  ExpectTensorNear(Fill(DataType::kBool, {2}, 1.0f),
                   MakeTensor<bool>({2}, {true, true}), 0, 0);
  ExpectTensorNear(Fill(DataType::kUInt8, {2}, 255.0f),
                   MakeTensor<uint8_t>({2}, {255, 255}), 0, 0);
  ExpectTensorNear(Fill(DataType::kInt8, {1}, -128.0f),
                   MakeTensor<int8_t>({1}, {-128}), 0, 0);
  ExpectTensorNear(Fill(DataType::kInt16, {1}, 300.0f),
                   MakeTensor<int16_t>({1}, {300}), 0, 0);
  Tensor h = Fill(DataType::kFloat16, {2}, 0.5f);
  ASSERT_EQ(h.dtype(), DataType::kFloat16);
  EXPECT_EQ(h.data<platform::float16>()[1].bits, 0x3800);  // 0.5 in fp16
  Tensor b = Fill(DataType::kBFloat16, {1}, -2.0f);
  ASSERT_EQ(b.dtype(), DataType::kBFloat16);
  EXPECT_EQ(b.data<platform::bfloat16>()[0].bits, 0xc000);  // -2 in bf16
}

TEST(FillConstantOp, StrValueIsExactForInt64) {
  // 2^53 + 1 is not representable as float or double.
  const int64_t big = (int64_t(1) << 53) + 1;
  Tensor t = Fill(DataType::kInt64, {2}, 9.0e15f, std::to_string(big));
  EXPECT_EQ(ToVector<int64_t>(t), (std::vector<int64_t>{big, big}));
  Tensor m = Fill(DataType::kInt64, {1}, 0.0f, "-9223372036854775808");
  EXPECT_EQ(ToVector<int64_t>(m)[0], std::numeric_limits<int64_t>::min());
  // A decimal text for an integer output goes through double.
  EXPECT_EQ(ToVector<int64_t>(Fill(DataType::kInt64, {1}, 0.0f, "3.0"))[0], 3);
  EXPECT_EQ(ToVector<int32_t>(Fill(DataType::kInt32, {1}, 0.0f, "-4.7"))[0],
            -4);
}

TEST(FillConstantOp, StrValueWinsOverValue) {
  ExpectTensorNear(Fill(DataType::kFloat64, {1}, 1.0f, "0.1"),
                   MakeTensor<double>({1}, {0.1}), 0, 0);  // exact double
  ExpectTensorNear(Fill(DataType::kFloat32, {1}, 1.0f, "1e-3"),
                   MakeTensor<float>({1}, {1e-3f}), 0, 0);
}

TEST(FillConstantOp, StrValueInfAndNan) {
  auto f = [](const std::string& s) {
    return ToVector<float>(Fill(DataType::kFloat32, {1}, 0.0f, s))[0];
  };
  EXPECT_EQ(f("inf"), std::numeric_limits<float>::infinity());
  EXPECT_EQ(f("-inf"), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(f("nan")));
  EXPECT_TRUE(std::isinf(
      ToVector<double>(Fill(DataType::kFloat64, {1}, 0.0f, "-inf"))[0]));
  // Integer outputs get Paddle's numeric_limits<int>::infinity(), 0.
  EXPECT_EQ(ToVector<int32_t>(Fill(DataType::kInt32, {1}, 0.0f, "inf"))[0], 0);
}

TEST(FillConstantOp, ValueTensorWinsOverStrValue) {
  OpTester t("fill_constant");
  t.Input("ValueTensor", MakeTensor<float>({1}, {2.5f}))
      .Output("Out")
      .Attr("shape", std::vector<int64_t>{2})
      .Attr("value", 1.0f)
      .Attr("str_value", std::string("3.0"));
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({2}, {2.5f, 2.5f}), 0,
                   0);

  const int64_t big = (int64_t(1) << 60) + 7;
  OpTester i("fill_constant");
  i.Input("ValueTensor", MakeTensor<int64_t>({1}, {big}))
      .Output("Out", DataType::kInt64)
      .Attr("dtype", static_cast<int32_t>(DataType::kInt64))
      .Attr("shape", std::vector<int64_t>{1});
  i.Run();
  EXPECT_EQ(ToVector<int64_t>(i.GetOutput("Out"))[0], big);
}

TEST(FillConstantOp, ShapeTensorPriorities) {
  OpTester t("fill_constant");  // ShapeTensor > ShapeTensorList > attribute
  t.Input("ShapeTensor", MakeTensor<int64_t>({2}, {3, 2}))
      .Inputs("ShapeTensorList", {MakeTensor<int32_t>({1}, {5})})
      .Output("Out")
      .Attr("shape", std::vector<int64_t>{-1, -1})
      .Attr("value", 1.0f);
  t.Run();
  EXPECT_EQ(t.GetOutput("Out").dims(), (DDim{3, 2}));

  OpTester l("fill_constant");
  l.Inputs("ShapeTensorList",
           {MakeTensor<int32_t>({1}, {4}), MakeTensor<int64_t>({1}, {1})})
      .Output("Out")
      .Attr("shape", std::vector<int64_t>{-1, 7});
  l.Run();
  EXPECT_EQ(l.GetOutput("Out").dims(), (DDim{4, 1}));
}

TEST(FillConstantOp, Errors) {
  ExpectError(
      [] {
        Fill(DataType::kFloat32, {2, -1}, 0.0f);
      },
      ErrorCode::kInvalidArgument, {"fill_constant", "[2, -1]", "negative"});
  ExpectError([] { Fill(DataType::kFloat32, {1}, 0.0f, "one"); },
              ErrorCode::kInvalidArgument, {"fill_constant", "'one'"});
  ExpectError(
      [] {
        OpTester t("fill_constant");
        t.Output("Out").Attr("dtype", 42);
        t.Run();
      },
      ErrorCode::kInvalidArgument, {"fill_constant", "dtype 42"});
  ExpectError(
      [] {
        OpTester t("fill_constant");
        t.Input("ValueTensor", MakeTensor<float>({2}, {1, 2})).Output("Out");
        t.Run();
      },
      ErrorCode::kInvalidArgument, {"fill_constant", "ValueTensor", "[2]"});
  ExpectError(
      [] {
        OpTester t("fill_constant");
        t.Input("ShapeTensor", MakeTensor<float>({1}, {2})).Output("Out");
        t.Run();
      },
      ErrorCode::kInvalidArgument,
      {"fill_constant", "ShapeTensor", "int32 or int64"});
}

TEST(FillConstantOp, AllKernelsAgree) {
  OpTester t("fill_constant");
  t.Output("Out")
      .Attr("shape", std::vector<int64_t>{13, 127})
      .Attr("value", 0.25f);
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
