// fused_upsample_add against what it replaces, run as those ops:
// nearest_interp_v2 (scale attribute) of Y, elementwise_mul of X by XScale
// when given, elementwise_add. Whole and fractional scales, a gate per
// image or shared by the batch, 1-pixel and 1-channel maps, empty
// batches, and the errors of operands that do not fit. Results must be the
// same bits.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DDim;
using framework::Tensor;

Tensor Reference(const Tensor& x,
                 const Tensor& y,
                 const Tensor* x_scale,
                 float scale_h,
                 float scale_w) {
  OpTester up("nearest_interp_v2");
  up.Input("X", y)
      .Output("Out")
      .Attr("scale", std::vector<float>{scale_h, scale_w})
      .Attr("align_corners", false)
      .Attr("interp_method", std::string("nearest"));
  up.Run();
  Tensor left = x;
  if (x_scale != nullptr) {
    OpTester mul("elementwise_mul");
    mul.Input("X", x).Input("Y", *x_scale).Output("Out");
    mul.Run();
    left = mul.GetOutput("Out");
  }
  OpTester add("elementwise_add");
  add.Input("X", left).Input("Y", up.GetOutput("Out")).Output("Out");
  add.Run();
  return add.GetOutput("Out");
}

OpTester Fused(const Tensor& x,
               const Tensor& y,
               const Tensor* x_scale,
               float scale_h,
               float scale_w) {
  OpTester t("fused_upsample_add");
  t.Input("X", x)
      .Input("Y", y)
      .Output("Out")
      .Attr("scale_h", scale_h)
      .Attr("scale_w", scale_w);
  if (x_scale != nullptr) t.Input("XScale", *x_scale);
  return t;
}

void Check(const DDim& x_dims,
           const DDim& y_dims,
           const DDim& scale_dims,
           float scale_h,
           float scale_w) {
  SCOPED_TRACE("X " + framework::DimsToString(x_dims) + " Y " +
               framework::DimsToString(y_dims) + " XScale " +
               framework::DimsToString(scale_dims));
  const Tensor x = RandomTensor<float>(x_dims, -3, 3, 61);
  const Tensor y = RandomTensor<float>(y_dims, -3, 3, 62);
  const Tensor gate = RandomTensor<float>(scale_dims, 0, 2, 63);
  const Tensor* x_scale = scale_dims.empty() ? nullptr : &gate;
  const Tensor expected = Reference(x, y, x_scale, scale_h, scale_w);
  OpTester t = Fused(x, y, x_scale, scale_h, scale_w);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), expected, 0, 0);
  OpTester all = Fused(x, y, x_scale, scale_h, scale_w);
  all.RunAllKernels(0, 0);
}

TEST(FusedUpsampleAddOp, ATopDownStep) {
  Check({1, 8, 12, 10}, {1, 8, 6, 5}, {}, 2.f, 2.f);
  Check({1, 8, 12, 10}, {1, 8, 6, 5}, {1, 8, 1, 1}, 2.f, 2.f);
  Check({3, 5, 8, 12}, {3, 5, 2, 4}, {3, 5, 1, 1}, 4.f, 3.f);
  Check({3, 5, 8, 12}, {3, 5, 2, 4}, {1, 5, 1, 1}, 4.f, 3.f);
}

TEST(FusedUpsampleAddOp, FractionalScalesAndSmallMaps) {
  Check({1, 2, 6, 15}, {1, 2, 4, 6}, {}, 1.5f, 2.5f);
  Check({2, 3, 5, 7}, {2, 3, 5, 7}, {2, 3, 1, 1}, 1.f, 1.f);
  Check({1, 1, 5, 7}, {1, 1, 1, 1}, {1, 1, 1, 1}, 5.f, 7.f);
  Check({1, 9, 1, 1}, {1, 9, 1, 1}, {}, 1.f, 1.f);
  Check({0, 4, 6, 6}, {0, 4, 3, 3}, {1, 4, 1, 1}, 2.f, 2.f);
}

TEST(FusedUpsampleAddOp, OperandsThatDoNotFitAreErrors) {
  auto run = [](const DDim& x, const DDim& y, const DDim& s, float sh) {
    const Tensor gate = RandomTensor<float>(s, -1, 1, 3);
    OpTester t = Fused(RandomTensor<float>(x, -1, 1, 1),
                       RandomTensor<float>(y, -1, 1, 2),
                       s.empty() ? nullptr : &gate, sh, sh);
    t.Run();
  };
  ExpectError(
      [&] {
        run({1, 4, 6, 6}, {1, 4, 4, 4}, {}, 2.f);
      },
      ErrorCode::kInvalidArgument,
      {"fused_upsample_add", "[1, 4, 8, 8]", "X's dims"});
  ExpectError(
      [&] {
        run({1, 4, 6, 6}, {1, 5, 3, 3}, {}, 2.f);
      },
      ErrorCode::kInvalidArgument, {"Y", "X's dims"});
  ExpectError(
      [&] {
        run({2, 4, 6, 6}, {2, 4, 3, 3}, {2, 4, 2, 1}, 2.f);
      },
      ErrorCode::kInvalidArgument, {"XScale must be [1 or 2, 4, 1, 1]"});
  ExpectError(
      [&] {
        run({1, 4, 6, 6}, {1, 4, 3, 3}, {}, -2.f);
      },
      ErrorCode::kInvalidArgument, {"positive"});
  ExpectError(
      [&] {
        run({4, 6, 6}, {4, 3, 3}, {}, 2.f);
      },
      ErrorCode::kInvalidArgument, {"4-D"});
  ExpectError(
      [&] {
        run({1, 4, 6, 6}, {1, 4, 3, 3}, {}, 1e30f);
      },
      ErrorCode::kInvalidArgument, {"Y's dim 3", "over 2^31"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
