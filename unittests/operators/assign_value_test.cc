#include <cmath>
#include <cstdint>
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
using framework::Scalar;
using framework::Tensor;

// assign_value of `dtype` and `shape` with one list attribute set.
Tensor Assign(DataType dtype,
              const std::vector<int32_t>& shape,
              const std::string& list,
              framework::Attribute values) {
  OpTester t("assign_value");
  t.Output("Out", dtype)
      .Attr("dtype", static_cast<int32_t>(dtype))
      .Attr("shape", shape)
      .Attr(list, std::move(values));
  t.Run();
  return t.GetOutput("Out");
}

Scalar Int(int64_t v) {
  Scalar s;
  s.kind = Scalar::kInt64;
  s.i = v;
  return s;
}

Scalar Real(double v) {
  Scalar s;
  s.kind = Scalar::kFloat64;
  s.r = v;
  return s;
}

Scalar Bool(bool v) {
  Scalar s;
  s.kind = Scalar::kBool;
  s.b = v;
  return s;
}

TEST(AssignValueOp, TypedListsPerDtype) {
  ExpectTensorNear(Assign(DataType::kFloat32, {2, 3}, "fp32_values",
                          std::vector<float>{1, 2, 3, 4, 5, 6.5f}),
                   MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6.5f}), 0, 0);
  ExpectTensorNear(Assign(DataType::kFloat64, {2}, "fp64_values",
                          std::vector<double>{0.1, -1e300}),
                   MakeTensor<double>({2}, {0.1, -1e300}), 0, 0);
  ExpectTensorNear(Assign(DataType::kInt32, {3, 1}, "int32_values",
                          std::vector<int32_t>{-7, 0, 2147483647}),
                   MakeTensor<int32_t>({3, 1}, {-7, 0, 2147483647}), 0, 0);
  // As PP-Structure's SLANet stores it: dtype 3, LONGS, shape [1].
  const int64_t big = (int64_t(1) << 60) + 1;
  ExpectTensorNear(Assign(DataType::kInt64, {1, 2}, "int64_values",
                          std::vector<int64_t>{500, big}),
                   MakeTensor<int64_t>({1, 2}, {500, big}), 0, 0);
  ExpectTensorNear(Assign(DataType::kBool, {3}, "bool_values",
                          std::vector<int32_t>{1, 0, 1}),
                   MakeTensor<bool>({3}, {true, false, true}), 0, 0);
}

// Float lists are also read as integers internally (any numeric attribute
// may be asked for as either): -inf, NaN and values past int64 must not
// make that conversion undefined (found by auditing for the fuzzer).
TEST(AssignValueOp, NonFiniteAndHugeFloatValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor out = Assign(DataType::kFloat32, {4}, "fp32_values",
                            std::vector<float>{-inf, inf, 1e19f, -1e30f});
  EXPECT_EQ(ToVector<float>(out),
            (std::vector<float>{-inf, inf, 1e19f, -1e30f}));
  const Tensor nan = Assign(DataType::kFloat32, {1}, "fp32_values",
                            std::vector<float>{std::nanf("")});
  EXPECT_TRUE(std::isnan(ToVector<float>(nan)[0]));
  const Tensor scalars = Assign(DataType::kFloat64, {2}, "values",
                                std::vector<Scalar>{Real(-1e300), Real(NAN)});
  EXPECT_EQ(ToVector<double>(scalars)[0], -1e300);
  EXPECT_TRUE(std::isnan(ToVector<double>(scalars)[1]));
}

TEST(AssignValueOp, Fp64FromFp32ValuesOfOlderFiles) {
  // Before FLOAT64S, float64 values were stored as float32.
  ExpectTensorNear(
      Assign(DataType::kFloat64, {1}, "fp32_values", std::vector<float>{0.1f}),
      MakeTensor<double>({1}, {static_cast<double>(0.1f)}), 0, 0);
}

TEST(AssignValueOp, ScalarsForm) {
  ExpectTensorNear(Assign(DataType::kFloat32, {2}, "values",
                          std::vector<Scalar>{Real(1.25), Int(-3)}),
                   MakeTensor<float>({2}, {1.25f, -3}), 0, 0);
  ExpectTensorNear(
      Assign(DataType::kFloat64, {1}, "values", std::vector<Scalar>{Real(0.1)}),
      MakeTensor<double>({1}, {0.1}), 0, 0);
  const int64_t big = -(int64_t(1) << 62) - 1;  // exact only as int64
  ExpectTensorNear(Assign(DataType::kInt64, {2}, "values",
                          std::vector<Scalar>{Int(big), Int(9)}),
                   MakeTensor<int64_t>({2}, {big, 9}), 0, 0);
  ExpectTensorNear(Assign(DataType::kInt32, {2}, "values",
                          std::vector<Scalar>{Int(-4), Real(2.9)}),
                   MakeTensor<int32_t>({2}, {-4, 2}), 0, 0);
  ExpectTensorNear(Assign(DataType::kBool, {3}, "values",
                          std::vector<Scalar>{Bool(true), Bool(false), Int(2)}),
                   MakeTensor<bool>({3}, {true, false, true}), 0, 0);
  ExpectTensorNear(Assign(DataType::kInt8, {2}, "values",
                          std::vector<Scalar>{Int(-128), Int(127)}),
                   MakeTensor<int8_t>({2}, {-128, 127}), 0, 0);
  Tensor half =
      Assign(DataType::kFloat16, {1}, "values", std::vector<Scalar>{Real(0.5)});
  ASSERT_EQ(half.dtype(), DataType::kFloat16);
  EXPECT_EQ(half.data<platform::float16>()[0].bits, 0x3800);
  Tensor bf =
      Assign(DataType::kBFloat16, {1}, "values", std::vector<Scalar>{Real(-2)});
  ASSERT_EQ(bf.dtype(), DataType::kBFloat16);
  EXPECT_EQ(bf.data<platform::bfloat16>()[0].bits, 0xc000);
}

TEST(AssignValueOp, ScalarsWinOverTypedLists) {
  OpTester t("assign_value");
  t.Output("Out")
      .Attr("shape", std::vector<int32_t>{1})
      .Attr("fp32_values", std::vector<float>{1})
      .Attr("values", std::vector<Scalar>{Real(2)});
  t.Run();  // dtype defaults to float32
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({1}, {2}), 0, 0);
}

TEST(AssignValueOp, ZeroDAndEmpty) {
  ExpectTensorNear(
      Assign(DataType::kFloat32, {}, "fp32_values", std::vector<float>{3}),
      MakeTensor<float>({}, {3}), 0, 0);
  Tensor empty =
      Assign(DataType::kInt64, {0, 13}, "int64_values", std::vector<int64_t>{});
  EXPECT_EQ(empty.dims(), (DDim{0, 13}));
  EXPECT_EQ(empty.dtype(), DataType::kInt64);
}

TEST(AssignValueOp, Errors) {
  ExpectError(
      [] {
        Assign(DataType::kFloat32, {2, 2}, "fp32_values",
               std::vector<float>{1, 2, 3});
      },
      ErrorCode::kInvalidArgument,
      {"assign_value", "[2, 2]", "needs 4", "fp32_values holds 3"});
  ExpectError(
      [] {
        Assign(DataType::kInt32, {2}, "int32_values", std::vector<int32_t>{});
      },
      ErrorCode::kInvalidArgument, {"assign_value", "no value list"});
  ExpectError(
      [] {
        Assign(DataType::kFloat32, {-1}, "fp32_values", std::vector<float>{1});
      },
      ErrorCode::kInvalidArgument, {"assign_value", "[-1]", "negative"});
  ExpectError(
      [] {
        OpTester t("assign_value");
        t.Output("Out")
            .Attr("shape", std::vector<int32_t>{1})
            .Attr("dtype", 77);
        t.Run();
      },
      ErrorCode::kInvalidArgument, {"assign_value", "dtype 77"});
  ExpectError(
      [] {
        OpTester t("assign_value");
        t.Output("Out").Attr("fp32_values", std::vector<float>{1});
        t.Run();
      },
      ErrorCode::kInvalidArgument, {"assign_value", "shape"});
}

TEST(AssignValueOp, RunAllKernels) {
  std::vector<float> values(13 * 127);
  for (size_t i = 0; i < values.size(); ++i) values[i] = 0.5f * i;
  OpTester t("assign_value");
  t.Output("Out")
      .Attr("shape", std::vector<int32_t>{13, 127})
      .Attr("fp32_values", values);
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
