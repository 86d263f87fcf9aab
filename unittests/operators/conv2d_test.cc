#include <string>
#include <vector>

#include "framework/op_registry.h"
#include "gtest/gtest.h"
#include "operators/conv_pool_shape.h"
#include "unittests/operators/conv_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;

TEST(Conv2dOp, HandComputedWithDefaultAttributes) {
  // 3x3 input 1..9, 2x2 filter of ones, every attribute left at its default
  // (stride 1, no padding): each output sums a 2x2 patch.
  OpTester t("conv2d");
  t.Input("Input", MakeTensor<float>({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}))
      .Input("Filter", MakeTensor<float>({1, 1, 2, 2}, {1, 1, 1, 1}))
      .Output("Output");
  t.Run();
  ExpectTensorNear(t.GetOutput("Output"),
                   MakeTensor<float>({1, 1, 2, 2}, {12, 16, 24, 28}));
}

TEST(Conv2dOp, HandComputedPaddingStrideAndBias) {
  // Filter picks the centre tap times 2; padding 1, stride 2 on a 3x3
  // input: outputs at (0,0), (0,2), (2,0), (2,2), plus bias 0.5.
  OpTester t("conv2d");
  t.Input("Input", MakeTensor<float>({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}))
      .Input("Filter",
             MakeTensor<float>({1, 1, 3, 3}, {0, 0, 0, 0, 2, 0, 0, 0, 0}))
      .Input("Bias", MakeTensor<float>({1}, {0.5f}))
      .Output("Output")
      .Attr("strides", std::vector<int>{2, 2})
      .Attr("paddings", std::vector<int>{1, 1});
  t.Run();
  ExpectTensorNear(t.GetOutput("Output"),
                   MakeTensor<float>({1, 1, 2, 2}, {2.5f, 6.5f, 14.5f, 18.5f}));
}

std::vector<ConvCase> ConvCases() {
  std::vector<ConvCase> cases;
  ConvCase base;
  cases.push_back(base);  // 3x3, no padding
  ConvCase k = base;
  k.paddings = {1, 1};
  cases.push_back(k);
  k = base;
  k.strides = {2, 2};
  k.paddings = {1, 1};
  k.h = 13;
  k.w = 11;
  cases.push_back(k);
  k = base;
  k.strides = {2, 1};
  k.paddings = {0, 2, 1, 0};  // asymmetric [top, bottom, left, right]
  k.h = 9;
  k.w = 8;
  cases.push_back(k);
  k = base;
  k.padding_algorithm = "SAME";
  k.strides = {2, 2};
  k.h = 10;
  k.w = 7;
  k.paddings = {5, 5};  // ignored under SAME
  cases.push_back(k);
  k = base;
  k.padding_algorithm = "SAME";
  k.dilations = {2, 3};  // forced to 1 under SAME
  k.kh = 2;
  k.kw = 4;
  cases.push_back(k);
  k = base;
  k.padding_algorithm = "VALID";
  k.paddings = {2, 2};  // ignored under VALID
  k.strides = {3, 2};
  k.h = 13;
  k.w = 12;
  cases.push_back(k);
  k = base;
  k.dilations = {2, 2};
  k.paddings = {2, 1};
  k.h = 11;
  k.w = 9;
  cases.push_back(k);
  k = base;
  k.c = 4;
  k.m = 6;
  k.groups = 2;
  k.paddings = {1, 1};
  cases.push_back(k);
  k = base;
  k.c = 6;
  k.m = 3;
  k.groups = 3;
  k.strides = {2, 2};
  k.h = 7;
  k.w = 7;
  cases.push_back(k);
  k = base;
  k.c = 4;
  k.m = 8;
  k.groups = 4;  // depthwise with multiplier 2 under the conv2d type
  k.paddings = {1, 1};
  k.bias = true;
  cases.push_back(k);
  k = base;
  k.kh = k.kw = 1;  // 1x1: read directly, no im2col
  k.c = 5;
  k.m = 7;
  k.h = 13;
  k.w = 3;
  cases.push_back(k);
  k.strides = {2, 2};  // 1x1 with stride takes the im2col path
  cases.push_back(k);
  k = base;
  k.n = 2;
  k.paddings = {1, 1};
  k.bias = true;
  cases.push_back(k);
  k = base;
  k.data_format = "NHWC";
  k.n = 2;
  k.paddings = {1, 0, 2, 1};
  k.strides = {2, 2};
  k.h = 9;
  k.w = 6;
  cases.push_back(k);
  k.groups = 3;
  k.c = 3;
  k.m = 6;
  k.bias = true;
  cases.push_back(k);
  k = base;
  k.kh = 5;  // non-square filter larger than the stride
  k.kw = 2;
  k.h = 6;
  k.w = 13;
  cases.push_back(k);
  k = base;
  k.h = 2;  // the window does not fit: C++ truncation still gives 1 output
  k.w = 2;
  k.strides = {2, 2};
  cases.push_back(k);
  k = base;
  k.h = k.w = 1;  // 1-element input with padding
  k.c = 1;
  k.m = 1;
  k.paddings = {1, 1};
  cases.push_back(k);
  return cases;
}

TEST(Conv2dOp, MatchesNaiveReference) {
  for (const auto& k : ConvCases()) {
    CheckConvCase<float>("conv2d", k, /*threads=*/1);
    CheckConvCase<float>("conv2d", k, /*threads=*/3);
  }
}

TEST(Conv2dOp, MatchesNaiveReferenceDouble) {
  for (const auto& k : ConvCases()) CheckConvCase<double>("conv2d", k);
}

TEST(Conv2dOp, LargeInputSplitsIntoTiles) {
  // 70x70 output pixels exceed one column tile: several tiles per image.
  ConvCase k;
  k.n = 2;
  k.c = 8;
  k.h = 70;
  k.w = 70;
  k.m = 16;
  k.paddings = {1, 1};
  k.bias = true;
  CheckConvCase<float>("conv2d", k, /*threads=*/1);
  CheckConvCase<float>("conv2d", k, /*threads=*/4);
  k.kh = k.kw = 1;
  k.paddings = {0, 0};
  CheckConvCase<float>("conv2d", k, /*threads=*/4);
}

TEST(Conv2dOp, FewPixelsManyChannelsSplitsOutputChannels) {
  // A 4x4 output with 128 channels on 4 threads is split by output
  // channel blocks.
  ConvCase k;
  k.c = 64;
  k.h = k.w = 4;
  k.m = 128;
  k.paddings = {1, 1};
  k.bias = true;
  CheckConvCase<float>("conv2d", k, /*threads=*/4);
  k.groups = 2;
  CheckConvCase<float>("conv2d", k, /*threads=*/4);
}

TEST(Conv2dOp, AnyLayoutMeansNchw) {
  ConvCase k;
  k.data_format = "AnyLayout";
  k.paddings = {1, 1};
  CheckConvCase<float>("conv2d", k);
}

TEST(Conv2dOp, EmptyBatch) {
  OpTester t("conv2d");
  t.Input("Input", MakeTensor<float>({0, 3, 5, 5}, {}))
      .Input("Filter", RandomTensor<float>({4, 3, 3, 3}))
      .Output("Output")
      .Attr("paddings", std::vector<int>{1, 1});
  t.Run();
  EXPECT_EQ(t.GetOutput("Output").dims(), (framework::DDim{0, 4, 5, 5}));
}

TEST(Conv2dOp, NoChannelsOfHostilePixels) {
  // NHWC with C = 0 and 2^40 pixels: the empty sum, 0, without walking the
  // pixels to change their layout.
  const int64_t side = int64_t{1} << 20;
  OpTester t("conv2d");
  t.Input("Input", MakeTensor<float>({1, side, side, 0}, {}))
      .Input("Filter", MakeTensor<float>({2, 0, side, side}, {}))
      .Output("Output")
      .Attr("data_format", std::string("NHWC"));
  t.Run();
  ExpectTensorNear(t.GetOutput("Output"),
                   MakeTensor<float>({1, 1, 1, 2}, {0.f, 0.f}));
}

TEST(Conv2dOp, RunAllKernels) {
  OpTester t("conv2d");
  t.Input("Input", RandomTensor<float>({2, 4, 13, 11}))
      .Input("Filter", RandomTensor<float>({6, 2, 3, 3}, -1, 1, 2))
      .Output("Output")
      .Attr("groups", 2)
      .Attr("strides", std::vector<int>{2, 1})
      .Attr("paddings", std::vector<int>{1, 0, 1, 2});
  t.RunAllKernels(1e-4, 1e-4);
}

void RunConv(
    const framework::DDim& input,
    const framework::DDim& filter,
    const std::vector<std::pair<std::string, framework::Attribute>>& attrs) {
  OpTester t("conv2d");
  t.Input("Input", RandomTensor<float>(input))
      .Input("Filter", RandomTensor<float>(filter))
      .Output("Output");
  for (const auto& a : attrs) t.Attr(a.first, a.second);
  t.Run();
}

TEST(Conv2dOp, ErrorInputRankMismatch) {
  ExpectError(
      [] {
        RunConv({1, 3, 5}, {4, 3, 3, 3}, {});
      },
      ErrorCode::kInvalidArgument, {"conv2d", "4-D", "[1, 3, 5]"});
  ExpectError(
      [] {
        RunConv({1, 3, 5, 5}, {4, 3, 3}, {});
      },
      ErrorCode::kInvalidArgument, {"conv2d", "Filter", "[4, 3, 3]"});
}

TEST(Conv2dOp, ErrorChannelMismatchWithGroups) {
  ExpectError(
      [] {
        RunConv({1, 4, 5, 5}, {8, 3, 3, 3}, {});
      },
      ErrorCode::kInvalidArgument,
      {"conv2d", "[8, 3, 3, 3]", "[1, 4, 5, 5]", "groups"});
  // 4 channels = 2 * groups 2 fits, but 3 output channels do not split
  // into 2 groups.
  ExpectError(
      [] {
        RunConv({1, 4, 5, 5}, {3, 2, 3, 3}, {{"groups", 2}});
      },
      ErrorCode::kInvalidArgument,
      {"conv2d", "[3, 2, 3, 3]", "divisible", "groups 2"});
  // NHWC input read as NCHW: the channel count is wrong.
  ExpectError(
      [] {
        RunConv({1, 5, 5, 3}, {4, 3, 3, 3}, {});
      },
      ErrorCode::kInvalidArgument, {"conv2d", "[1, 5, 5, 3]", "data_format"});
}

TEST(Conv2dOp, ErrorBadAttributes) {
  ExpectError(
      [] {
        RunConv({1, 3, 5, 5}, {4, 3, 3, 3},
                {{"paddings", std::vector<int>{1, 1, 1}}});
      },
      ErrorCode::kInvalidArgument, {"conv2d", "paddings", "[1, 1, 1]"});
  ExpectError(
      [] {
        RunConv({1, 3, 5, 5}, {4, 3, 3, 3},
                {{"strides", std::vector<int>{0, 1}}});
      },
      ErrorCode::kInvalidArgument, {"conv2d", "strides"});
  ExpectError(
      [] {
        RunConv({1, 3, 5, 5}, {4, 3, 3, 3},
                {{"padding_algorithm", std::string("FULL")}});
      },
      ErrorCode::kInvalidArgument, {"padding_algorithm", "FULL"});
  ExpectError(
      [] {
        RunConv({1, 3, 5, 5}, {4, 3, 3, 3}, {{"groups", 0}});
      },
      ErrorCode::kInvalidArgument, {"conv2d", "groups"});
}

// The attributes are read once per op (ConvAttrsOf) and the window is
// resolved per input size: under SAME the paddings follow each size.
TEST(Conv2dOp, GeometryOfOneOpAtSeveralSizes) {
  framework::OpDesc desc;
  desc.type = "conv2d";
  desc.SetInput("Input", {"x"});
  desc.SetInput("Filter", {"w"});
  desc.SetOutput("Output", {"y"});
  desc.attrs["strides"] = std::vector<int>{2, 2};
  desc.attrs["paddings"] = std::vector<int>{5, 5};   // ignored under SAME
  desc.attrs["dilations"] = std::vector<int>{2, 2};  // forced to 1
  desc.attrs["padding_algorithm"] = std::string("SAME");
  auto op = framework::CreateOp(desc);
  const framework::DDim filter = {4, 3, 3, 3};
  auto a = operators::ResolveConv2D(*op, {1, 3, 10, 7}, filter);
  EXPECT_EQ(a.out_h, 5);
  EXPECT_EQ(a.out_w, 4);
  EXPECT_EQ(a.pad.top, 0);  // (5 - 1) * 2 + 3 - 10 = 1: the odd one last
  EXPECT_EQ(a.pad.bottom, 1);
  EXPECT_EQ(a.pad.left, 1);  // (4 - 1) * 2 + 3 - 7 = 2
  EXPECT_EQ(a.pad.right, 1);
  EXPECT_EQ(a.dilation_h, 1);
  auto b = operators::ResolveConv2D(*op, {2, 3, 9, 12}, filter);
  EXPECT_EQ(b.batch, 2);
  EXPECT_EQ(b.out_h, 5);
  EXPECT_EQ(b.out_w, 6);
  EXPECT_EQ(b.pad.top, 1);  // (5 - 1) * 2 + 3 - 9 = 2
  EXPECT_EQ(b.pad.bottom, 1);
  EXPECT_EQ(b.pad.left, 0);  // (6 - 1) * 2 + 3 - 12 = 1
  EXPECT_EQ(b.pad.right, 1);
  // A wrong input is still checked at every call.
  ExpectError(
      [&] {
        operators::ResolveConv2D(*op, {1, 5, 9, 9}, filter);
      },
      ErrorCode::kInvalidArgument, {"conv2d", "[1, 5, 9, 9]"});
  EXPECT_EQ(operators::ResolveConv2D(*op, {1, 3, 10, 7}, filter).pad.bottom, 1);
}

TEST(Conv2dOp, ErrorOutputSizeNotPositive) {
  ExpectError(
      [] {
        RunConv({1, 3, 2, 2}, {4, 3, 5, 5}, {});
      },
      ErrorCode::kInvalidArgument,
      {"conv2d", "output size", "[1, 3, 2, 2]", "[4, 3, 5, 5]"});
}

TEST(Conv2dOp, ErrorBiasSizeAndResidual) {
  ExpectError(
      [] {
        OpTester t("conv2d");
        t.Input("Input", RandomTensor<float>({1, 3, 5, 5}))
            .Input("Filter", RandomTensor<float>({4, 3, 3, 3}))
            .Input("Bias", RandomTensor<float>({3}))
            .Output("Output");
        t.Run();
      },
      ErrorCode::kInvalidArgument, {"conv2d", "Bias", "[3]"});
  ExpectError(
      [] {
        OpTester t("conv2d");
        t.Input("Input", RandomTensor<float>({1, 3, 5, 5}))
            .Input("Filter", RandomTensor<float>({4, 3, 3, 3}))
            .Input("ResidualData", RandomTensor<float>({1, 4, 3, 3}))
            .Output("Output");
        t.Run();
      },
      ErrorCode::kUnimplemented, {"conv2d", "ResidualData"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
