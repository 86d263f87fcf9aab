// fused_conv2d_upsample_add against what it replaces, run as those ops:
// conv2d (with its Bias), nearest_interp_v2 (scale attribute) of
// ResidualData, elementwise_add, then the activation's op. 1x1
// convolutions as the pass makes them and wider, strided, padded ones
// (which the PLAIN kernel serves too), whole and fractional scales,
// batches, 1-pixel and 1-channel maps (which the MKLDNN kernel's own loops
// take even from plain tensors), empty batches, double, and the errors of
// a residual that does not fit. The PLAIN kernel must give the same bits.
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DDim;
using framework::Tensor;

struct Case {
  Case(DDim input,
       DDim filter,
       DDim residual,
       float scale_h = 2.f,
       float scale_w = 2.f)
      : input(std::move(input)),
        filter(std::move(filter)),
        residual(std::move(residual)),
        scale_h(scale_h),
        scale_w(scale_w) {}
  DDim input, filter, residual;
  float scale_h;
  float scale_w;
  std::vector<int> strides = {1, 1};
  std::vector<int> paddings = {0, 0};
  bool bias = true;
  std::string activation;  // "" or "relu"
};

Tensor Reference(const Case& c,
                 const Tensor& input,
                 const Tensor& filter,
                 const Tensor& bias,
                 const Tensor& residual) {
  OpTester conv("conv2d");
  conv.Input("Input", input)
      .Input("Filter", filter)
      .Output("Output")
      .Attr("strides", c.strides)
      .Attr("paddings", c.paddings);
  if (c.bias) conv.Input("Bias", bias);
  conv.Run();
  OpTester up("nearest_interp_v2");
  up.Input("X", residual)
      .Output("Out")
      .Attr("scale", std::vector<float>{c.scale_h, c.scale_w})
      .Attr("align_corners", false)
      .Attr("interp_method", std::string("nearest"));
  up.Run();
  OpTester add("elementwise_add");
  add.Input("X", conv.GetOutput("Output"))
      .Input("Y", up.GetOutput("Out"))
      .Output("Out");
  add.Run();
  if (c.activation.empty()) return add.GetOutput("Out");
  OpTester act(c.activation);
  act.Input("X", add.GetOutput("Out")).Output("Out");
  act.Run();
  return act.GetOutput("Out");
}

OpTester Fused(const Case& c,
               const Tensor& input,
               const Tensor& filter,
               const Tensor& bias,
               const Tensor& residual) {
  OpTester t("fused_conv2d_upsample_add");
  t.Input("Input", input)
      .Input("Filter", filter)
      .Input("ResidualData", residual)
      .Output("Output")
      .Attr("strides", c.strides)
      .Attr("paddings", c.paddings)
      .Attr("scale_h", c.scale_h)
      .Attr("scale_w", c.scale_w)
      .Attr("fuse_activation", c.activation);
  if (c.bias) t.Input("Bias", bias);
  return t;
}

template <typename T = float>
void Check(const Case& c) {
  SCOPED_TRACE("Input " + framework::DimsToString(c.input) + " Filter " +
               framework::DimsToString(c.filter) + " ResidualData " +
               framework::DimsToString(c.residual) + " act '" + c.activation +
               "'");
  const Tensor input = RandomTensor<T>(c.input, -2, 2, 71);
  const Tensor filter = RandomTensor<T>(c.filter, -1, 1, 72);
  const Tensor bias = RandomTensor<T>({c.filter[0]}, -1, 1, 73);
  const Tensor residual = RandomTensor<T>(c.residual, -3, 3, 74);
  const Tensor expected = Reference(c, input, filter, bias, residual);
  OpTester t = Fused(c, input, filter, bias, residual);
  t.Run();
  ExpectTensorNear(t.GetOutput("Output"), expected, 0, 0);
  OpTester all = Fused(c, input, filter, bias, residual);
  all.RunAllKernels(1e-5, 1e-5);
}

TEST(FusedConv2dUpsampleAddOp, APyramidStep) {
  Check(Case({1, 8, 12, 10}, {6, 8, 1, 1}, {1, 6, 6, 5}));
  Case batch({3, 5, 8, 12}, {4, 5, 1, 1}, {3, 4, 2, 4}, 4.f, 3.f);
  Check(batch);
  batch.bias = false;
  batch.activation = "relu";
  Check(batch);
  Check<double>(Case({2, 8, 12, 10}, {6, 8, 1, 1}, {2, 6, 6, 5}));
}

TEST(FusedConv2dUpsampleAddOp, WiderWindowsFractionalScalesAndSmallMaps) {
  Case strided({2, 3, 9, 9}, {4, 3, 3, 3}, {2, 4, 1, 1}, 5.f, 5.f);
  strided.strides = {2, 2};
  strided.paddings = {1, 1};
  Check(strided);
  Check(Case({1, 2, 6, 15}, {3, 2, 1, 1}, {1, 3, 4, 6}, 1.5f, 2.5f));
  // One pixel, and one channel in and out: plain tensors that are
  // channel-last too, so the MKLDNN kernel runs its own loops on them
  // (past one 64-channel panel, with an activation, in the third).
  Check(Case({1, 7, 1, 1}, {9, 7, 1, 1}, {1, 9, 1, 1}, 1.f, 1.f));
  Check(Case({2, 1, 4, 6}, {1, 1, 1, 1}, {2, 1, 2, 3}));
  Case wide({1, 20, 1, 1}, {70, 20, 1, 1}, {1, 70, 1, 1}, 1.f, 1.f);
  wide.activation = "relu";
  Check(wide);
  Check(Case({0, 4, 6, 6}, {4, 4, 1, 1}, {0, 4, 3, 3}));
}

TEST(FusedConv2dUpsampleAddOp, ResidualsThatDoNotFitAreErrors) {
  auto run = [](const DDim& input, const DDim& residual, float scale,
                const std::string& layout = "NCHW") {
    OpTester t("fused_conv2d_upsample_add");
    t.Input("Input", RandomTensor<float>(input, -1, 1, 1))
        .Input("Filter", RandomTensor<float>({4, 4, 1, 1}, -1, 1, 2))
        .Input("ResidualData", RandomTensor<float>(residual, -1, 1, 3))
        .Output("Output")
        .Attr("scale_h", scale)
        .Attr("scale_w", scale)
        .Attr("data_format", layout);
    t.Run();
  };
  ExpectError(
      [&] {
        run({1, 4, 6, 6}, {1, 4, 4, 4}, 2.f);
      },
      ErrorCode::kInvalidArgument,
      {"fused_conv2d_upsample_add", "ResidualData [1, 4, 4, 4]", "[1, 4, 8, 8]",
       "output dims [1, 4, 6, 6]"});
  ExpectError(
      [&] {
        run({1, 4, 6, 6}, {1, 3, 3, 3}, 2.f);
      },
      ErrorCode::kInvalidArgument, {"ResidualData", "output dims"});
  ExpectError(
      [&] {
        run({1, 4, 6, 6}, {1, 4, 3, 3}, -2.f);
      },
      ErrorCode::kInvalidArgument, {"positive"});
  ExpectError(
      [&] {
        run({1, 4, 6, 6}, {4, 3, 3}, 2.f);
      },
      ErrorCode::kInvalidArgument, {"ResidualData must be 4-D"});
  ExpectError(
      [&] {
        run({1, 6, 6, 4}, {1, 3, 3, 4}, 2.f, "NHWC");
      },
      ErrorCode::kUnimplemented, {"fused_conv2d_upsample_add", "NHWC"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
