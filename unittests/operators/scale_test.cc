#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"
#include "unittests/operators/unary_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::Tensor;

Tensor RunScale(const Tensor& x,
                const AttrList& attrs,
                const Tensor* scale_tensor = nullptr) {
  OpTester t("scale");
  t.Input("X", x).Output("Out", x.dtype());
  if (scale_tensor) t.Input("ScaleTensor", *scale_tensor);
  for (const auto& a : attrs) t.Attr(a.first, a.second);
  t.Run();
  return t.GetOutput("Out");
}

TEST(ScaleOp, DefaultsAreIdentity) {
  const Tensor x = MakeTensor<float>({2, 2}, {1, -2, 3.5f, 0});
  ExpectTensorNear(RunScale(x, {}), x, 0, 0);
}

TEST(ScaleOp, BiasAfterScale) {
  // Default order: 2 * x + 3.
  ExpectTensorNear(RunScale(MakeTensor<float>({3}, {1, -2, 0.5f}),
                            {{"scale", 2.0f}, {"bias", 3.0f}}),
                   MakeTensor<float>({3}, {5, -1, 4}), 0, 0);
  ExpectTensorNear(
      RunScale(MakeTensor<float>({3}, {1, -2, 0.5f}),
               {{"scale", 2.0f}, {"bias", 3.0f}, {"bias_after_scale", true}}),
      MakeTensor<float>({3}, {5, -1, 4}), 0, 0);
}

TEST(ScaleOp, BiasBeforeScale) {
  // 2 * (x + 3).
  ExpectTensorNear(
      RunScale(MakeTensor<float>({3}, {1, -2, 0.5f}),
               {{"scale", 2.0f}, {"bias", 3.0f}, {"bias_after_scale", false}}),
      MakeTensor<float>({3}, {8, 2, 7}), 0, 0);
}

TEST(ScaleOp, SizesAndDoubles) {
  for (bool after : {true, false}) {
    auto ref = [after](double x) {
      return after ? -1.5 * x + 0.25 : -1.5 * (x + 0.25);
    };
    AttrList attrs = {
        {"scale", -1.5f}, {"bias", 0.25f}, {"bias_after_scale", after}};
    CheckUnarySizes<float>("scale", attrs, ref);
    CheckUnarySizes<double>("scale", attrs, ref, -8, 8, 1e-12, 1e-12);
  }
}

TEST(ScaleOp, ScaleTensorOverridesAttribute) {
  const Tensor s = MakeTensor<float>({1}, {-3});
  ExpectTensorNear(RunScale(MakeTensor<float>({2}, {1, 2}),
                            {{"scale", 100.0f}, {"bias", 1.0f}}, &s),
                   MakeTensor<float>({2}, {-2, -5}), 0, 0);
  const Tensor s0 = MakeTensor<float>({}, {0.5f});
  ExpectTensorNear(RunScale(MakeTensor<double>({2}, {1, 2}),
                            {{"bias", 1.0f}, {"bias_after_scale", false}}, &s0),
                   MakeTensor<double>({2}, {1, 1.5}), 0, 0);
}

TEST(ScaleOp, ScaleTensorMustHaveOneElement) {
  const Tensor s = MakeTensor<float>({2}, {1, 2});
  ExpectError(
      [&] {
        RunScale(MakeTensor<float>({2}, {1, 2}), {}, &s);
      },
      ErrorCode::kInvalidArgument, {"scale", "ScaleTensor", "[2]"});
}

TEST(ScaleOp, IntegerTypesTruncateScaleAndBias) {
  // scale 2.7 -> 2 and bias 1.9 -> 1 before the arithmetic.
  ExpectTensorNear(RunScale(MakeTensor<int32_t>({3}, {1, -2, 5}),
                            {{"scale", 2.7f}, {"bias", 1.9f}}),
                   MakeTensor<int32_t>({3}, {3, -3, 11}), 0, 0);
  ExpectTensorNear(
      RunScale(MakeTensor<int32_t>({2}, {7, 9}), {{"scale", 0.5f}}),
      MakeTensor<int32_t>({2}, {0, 0}), 0, 0);
  ExpectTensorNear(
      RunScale(MakeTensor<int64_t>({2}, {int64_t{1} << 40, -1}),
               {{"scale", 3.0f}, {"bias", -2.0f}, {"bias_after_scale", false}}),
      MakeTensor<int64_t>({2}, {3 * ((int64_t{1} << 40) - 2), -9}), 0, 0);
}

// Signed overflow is undefined in C++: integer scales wrap around in two's
// complement, and a scale outside the type's range (or NaN) converts as
// x86 does, to the type's lowest value (found by fuzz_program_struct: a
// scale of INT64_MAX + 1).
TEST(ScaleOp, IntegerOverflowWrapsAround) {
  constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
  ExpectTensorNear(RunScale(MakeTensor<int64_t>({2}, {kMax64, kMin64}),
                            {{"scale", 1.0f}, {"bias", 1.0f}}),
                   MakeTensor<int64_t>({2}, {kMin64, kMin64 + 1}), 0, 0);
  ExpectTensorNear(
      RunScale(MakeTensor<int64_t>({2}, {kMax64, 3}),
               {{"scale", 2.0f}, {"bias", 1.0f}, {"bias_after_scale", false}}),
      MakeTensor<int64_t>({2}, {0, 8}), 0, 0);
  // 4 * 2^30 is 2^32: 0 in 32 bits.
  ExpectTensorNear(
      RunScale(MakeTensor<int32_t>({2}, {1 << 30, -3}), {{"scale", 4.0f}}),
      MakeTensor<int32_t>({2}, {0, -12}), 0, 0);
  constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
  for (float scale : {1e10f, -1e10f, std::nanf("")}) {
    ExpectTensorNear(
        RunScale(MakeTensor<int32_t>({3}, {1, 2, -1}), {{"scale", scale}}),
        MakeTensor<int32_t>({3}, {kMin32, 0, kMin32}), 0, 0);
  }
}

TEST(ScaleOp, KeepsLoD) {
  ExpectTensorNear(RunScale(MakeTensor<float>({2, 1}, {1, 2}, {{0, 1, 2}}),
                            {{"scale", 2.0f}}),
                   MakeTensor<float>({2, 1}, {2, 4}, {{0, 1, 2}}), 0, 0);
}

TEST(ScaleOp, AllKernelsAgree) {
  OpTester t("scale");
  t.Input("X", RandomTensor<float>({2, 3, 13}))
      .Attr("scale", 0.7f)
      .Attr("bias", 0.1f)
      .Output("Out");
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
