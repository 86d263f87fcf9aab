// fused_upsample_concat_conv2d against what it replaces, run as those
// ops: fused_upsample_concat (itself tested against nearest_interp_v2 and
// concat), then fused_conv2d with its Bias and activation. 3x3
// convolutions as the pass makes them and others the PLAIN kernel serves
// too (strided, grouped, 1x1, unpadded, asymmetric padding), whole and
// fractional scales, parts taken as they are, batches, 1-pixel maps,
// empty batches, double, and the errors of inputs that do not fit.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DDim;
using framework::Tensor;

struct JoinedConvCase {
  std::vector<DDim> parts;
  std::vector<float> scale_h;
  std::vector<float> scale_w;
  DDim filter;
  std::vector<int> strides = {1, 1};
  std::vector<int> paddings = {1, 1};
  int groups = 1;
  bool bias = true;
  std::string activation = "relu";
};

template <typename T>
struct JoinedConvInputs {
  std::vector<Tensor> xs;
  Tensor filter;
  Tensor bias;
};

template <typename T>
JoinedConvInputs<T> InputsOf(const JoinedConvCase& c) {
  JoinedConvInputs<T> in;
  for (size_t i = 0; i < c.parts.size(); ++i) {
    in.xs.push_back(
        RandomTensor<T>(c.parts[i], -2, 2, static_cast<uint32_t>(60 + i)));
  }
  in.filter = RandomTensor<T>(c.filter, -1, 1, 70);
  in.bias = RandomTensor<T>({c.filter[0]}, -1, 1, 71);
  return in;
}

template <typename T>
Tensor JoinThenConvolve(const JoinedConvCase& c,
                        const JoinedConvInputs<T>& in) {
  OpTester join("fused_upsample_concat");
  join.Inputs("X", in.xs)
      .Output("Out")
      .Attr("scale_h", c.scale_h)
      .Attr("scale_w", c.scale_w);
  join.Run();
  OpTester conv("fused_conv2d");
  conv.Input("Input", join.GetOutput("Out"))
      .Input("Filter", in.filter)
      .Output("Output")
      .Attr("strides", c.strides)
      .Attr("paddings", c.paddings)
      .Attr("groups", c.groups)
      .Attr("fuse_activation", c.activation);
  if (c.bias) conv.Input("Bias", in.bias);
  conv.Run();
  return conv.GetOutput("Output");
}

template <typename T>
OpTester JoinedConv(const JoinedConvCase& c, const JoinedConvInputs<T>& in) {
  OpTester t("fused_upsample_concat_conv2d");
  t.Inputs("X", in.xs)
      .Input("Filter", in.filter)
      .Output("Output")
      .Attr("scale_h", c.scale_h)
      .Attr("scale_w", c.scale_w)
      .Attr("strides", c.strides)
      .Attr("paddings", c.paddings)
      .Attr("groups", c.groups)
      .Attr("fuse_activation", c.activation);
  if (c.bias) t.Input("Bias", in.bias);
  return t;
}

template <typename T = float>
void CheckJoinedConv(const JoinedConvCase& c) {
  const JoinedConvInputs<T> in = InputsOf<T>(c);
  const Tensor expected = JoinThenConvolve(c, in);
  OpTester t = JoinedConv(c, in);
  t.Run();
  ExpectTensorNear(t.GetOutput("Output"), expected, 0, 0);
  // The MKLDNN kernel too (plain inputs: it hands them to PLAIN).
  OpTester all = JoinedConv(c, in);
  all.RunAllKernels(1e-5, 1e-5);
}

TEST(FusedUpsampleConcatConv2dOp, AFeaturePyramidsHead) {
  // DBNet's: levels upsampled by 8, 4 and 2 joined with the finest, then
  // a 3x3 convolution of all their channels.
  CheckJoinedConv({{{1, 8, 2, 3}, {1, 8, 4, 6}, {1, 8, 8, 12}, {1, 8, 16, 24}},
                   {8.f, 4.f, 2.f, 1.f},
                   {8.f, 4.f, 2.f, 1.f},
                   {16, 32, 3, 3}});
  // Several images, odd channel counts, no bias, no activation.
  JoinedConvCase c{
      {{3, 13, 5, 4}, {3, 19, 10, 8}}, {2.f, 1.f}, {2.f, 1.f}, {17, 32, 3, 3}};
  c.bias = false;
  c.activation = "";
  CheckJoinedConv(c);
}

TEST(FusedUpsampleConcatConv2dOp, OtherWindowsThePlainKernelServes) {
  JoinedConvCase strided{
      {{1, 4, 3, 3}, {1, 4, 6, 6}}, {2.f, 1.f}, {2.f, 1.f}, {6, 8, 3, 3}};
  strided.strides = {2, 2};
  CheckJoinedConv(strided);
  JoinedConvCase grouped = strided;
  grouped.strides = {1, 1};
  grouped.groups = 2;
  grouped.filter = {6, 4, 3, 3};
  CheckJoinedConv(grouped);
  JoinedConvCase pointwise = strided;
  pointwise.strides = {1, 1};
  pointwise.paddings = {0, 0};
  pointwise.filter = {5, 8, 1, 1};
  CheckJoinedConv(pointwise);
  JoinedConvCase uneven = strided;
  uneven.strides = {1, 1};
  uneven.paddings = {0, 2, 1, 0};
  CheckJoinedConv(uneven);
}

TEST(FusedUpsampleConcatConv2dOp, FractionalScalesOnePixelAndDouble) {
  CheckJoinedConv(
      {{{1, 3, 4, 6}, {1, 5, 6, 15}}, {1.5f, 1.f}, {2.5f, 1.f}, {4, 8, 3, 3}});
  CheckJoinedConv(
      {{{1, 2, 1, 1}, {1, 6, 1, 1}}, {1.f, 1.f}, {1.f, 1.f}, {3, 8, 3, 3}});
  CheckJoinedConv(
      {{{1, 2, 1, 1}, {1, 2, 5, 7}}, {5.f, 1.f}, {7.f, 1.f}, {3, 4, 3, 3}});
  CheckJoinedConv<double>(
      {{{2, 3, 2, 2}, {2, 5, 4, 4}}, {2.f, 1.f}, {2.f, 1.f}, {4, 8, 3, 3}});
}

TEST(FusedUpsampleConcatConv2dOp, NoImagesGiveAnEmptyOutput) {
  const JoinedConvCase c{
      {{0, 3, 2, 2}, {0, 5, 4, 4}}, {2.f, 1.f}, {2.f, 1.f}, {4, 8, 3, 3}};
  OpTester t = JoinedConv(c, InputsOf<float>(c));
  t.Run();
  EXPECT_EQ(t.GetOutput("Output").dims(), (DDim{0, 4, 4, 4}));
}

TEST(FusedUpsampleConcatConv2dOp, InputsThatDoNotFitAreErrors) {
  auto run = [](const JoinedConvCase& c, const std::string& layout) {
    OpTester t = JoinedConv(c, InputsOf<float>(c));
    t.Attr("data_format", layout);
    t.Run();
  };
  const JoinedConvCase fits{
      {{1, 3, 2, 2}, {1, 5, 4, 4}}, {2.f, 1.f}, {2.f, 1.f}, {4, 8, 3, 3}};
  JoinedConvCase sizes = fits;
  sizes.parts[1] = {1, 5, 4, 5};
  ExpectError([&] { run(sizes, "NCHW"); }, ErrorCode::kInvalidArgument,
              {"fused_upsample_concat_conv2d", "X[1]", "4 x 5", "4 x 4"});
  JoinedConvCase channels = fits;
  channels.filter = {4, 9, 3, 3};
  ExpectError([&] { run(channels, "NCHW"); }, ErrorCode::kInvalidArgument,
              {"fused_upsample_concat_conv2d"});
  ExpectError([&] { run(fits, "NHWC"); }, ErrorCode::kUnimplemented,
              {"fused_upsample_concat_conv2d", "NHWC"});
  JoinedConvCase bias = fits;
  OpTester t = JoinedConv(bias, InputsOf<float>(bias));
  t.Input("Bias", RandomTensor<float>({5}, -1, 1, 3));
  ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
              {"fused_upsample_concat_conv2d", "Bias"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
