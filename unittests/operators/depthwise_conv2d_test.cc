#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/conv_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

TEST(DepthwiseConv2dOp, HandComputed) {
  // Two channels, each with its own 2x2 filter; attributes at defaults
  // except groups.
  OpTester t("depthwise_conv2d");
  t.Input("Input",
          MakeTensor<float>({1, 2, 2, 3}, {1, 2, 3, 4, 5, 6,    // channel 0
                                           1, 1, 1, 2, 2, 2}))  // channel 1
      .Input("Filter", MakeTensor<float>({2, 1, 2, 2}, {1, 0, 0, 1,  //
                                                        1, 1, -1, -1}))
      .Output("Output")
      .Attr("groups", 2);
  t.Run();
  ExpectTensorNear(t.GetOutput("Output"),
                   MakeTensor<float>({1, 2, 1, 2}, {6, 8, -2, -2}));
}

std::vector<ConvCase> DepthwiseCases() {
  std::vector<ConvCase> cases;
  ConvCase base;
  base.c = 4;
  base.m = 4;
  base.groups = 4;
  base.h = 13;
  base.w = 11;
  cases.push_back(base);
  ConvCase k = base;
  k.paddings = {1, 1};
  k.bias = true;
  cases.push_back(k);
  k = base;
  k.m = 8;  // multiplier 2
  k.strides = {2, 2};
  k.paddings = {1, 1};
  cases.push_back(k);
  k = base;
  k.strides = {2, 3};
  k.paddings = {2, 0, 1, 3};
  cases.push_back(k);
  k = base;
  k.dilations = {2, 2};
  k.paddings = {2, 2};
  cases.push_back(k);
  k = base;
  k.padding_algorithm = "SAME";
  k.strides = {2, 2};
  k.kh = k.kw = 5;
  k.dilations = {3, 3};  // forced to 1
  cases.push_back(k);
  k = base;
  k.padding_algorithm = "VALID";
  k.paddings = {3, 3};
  cases.push_back(k);
  k = base;
  k.data_format = "NHWC";
  k.n = 2;
  k.m = 8;
  k.paddings = {1, 1};
  k.bias = true;
  cases.push_back(k);
  k = base;
  k.groups = 2;  // a depthwise_conv2d op that is really a grouped conv
  k.m = 6;
  k.paddings = {1, 1};
  cases.push_back(k);
  k = base;
  k.kh = k.kw = 1;
  k.h = k.w = 1;
  cases.push_back(k);
  // Rows wide enough for the vectorized middle and its remainder, with
  // every tap of the 3- and 5-wide filters unrolled, and a 7-wide one
  // (one tap per pass); then a row narrower than the filter.
  k = base;
  k.h = 6;
  k.w = 70;
  k.kh = k.kw = 5;
  k.dilations = {1, 2};
  k.paddings = {2, 4};
  k.bias = true;
  cases.push_back(k);
  k = base;
  k.w = 67;
  k.strides = {1, 2};
  k.paddings = {1, 1};
  cases.push_back(k);
  k = base;
  k.kh = 1;
  k.kw = 7;
  k.w = 40;
  k.strides = {1, 2};
  k.paddings = {0, 3};
  cases.push_back(k);
  k = base;
  k.w = 2;
  k.kh = k.kw = 5;
  k.paddings = {2, 2};
  cases.push_back(k);
  k = base;
  k.n = 2;
  k.c = k.m = k.groups = 1;  // one channel: both paths apply
  k.paddings = {0, 1};
  cases.push_back(k);
  return cases;
}

TEST(DepthwiseConv2dOp, MatchesNaiveReference) {
  for (const auto& k : DepthwiseCases()) {
    CheckConvCase<float>("depthwise_conv2d", k, /*threads=*/1);
    CheckConvCase<float>("depthwise_conv2d", k, /*threads=*/3);
    CheckConvCase<double>("depthwise_conv2d", k);
  }
}

TEST(DepthwiseConv2dOp, LargePlane) {
  ConvCase k;
  k.c = k.m = k.groups = 8;
  k.h = 127;
  k.w = 97;
  k.strides = {2, 2};
  k.paddings = {1, 1};
  k.bias = true;
  CheckConvCase<float>("depthwise_conv2d", k, /*threads=*/4);
}

TEST(DepthwiseConv2dOp, RunAllKernels) {
  OpTester t("depthwise_conv2d");
  t.Input("Input", RandomTensor<float>({1, 6, 13, 13}))
      .Input("Filter", RandomTensor<float>({12, 1, 3, 3}, -1, 1, 2))
      .Output("Output")
      .Attr("groups", 6)
      .Attr("paddings", std::vector<int>{1, 1});
  t.RunAllKernels(1e-4, 1e-4);
}

TEST(DepthwiseConv2dOp, ErrorChannelMismatch) {
  ExpectError(
      [] {
        OpTester t("depthwise_conv2d");
        t.Input("Input", RandomTensor<float>({1, 8, 5, 5}))
            .Input("Filter", RandomTensor<float>({8, 1, 3, 3}))
            .Output("Output")
            .Attr("groups", 4);
        t.Run();
      },
      ErrorCode::kInvalidArgument,
      {"depthwise_conv2d", "[8, 1, 3, 3]", "[1, 8, 5, 5]", "groups 4"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
