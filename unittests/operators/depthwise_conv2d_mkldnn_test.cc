// depthwise_conv2d through the MKLDNN kernel against PLAIN: channel
// multipliers 1 and 2, strides, dilations, asymmetric padding, bias, NHWC
// and channel counts that take oneDNN's vectorized depthwise path.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

struct Depthwise {
  int64_t n = 1, c = 8, h = 11, w = 11, multiplier = 1, k = 3;
  std::vector<int> strides = {1, 1};
  std::vector<int> paddings = {1, 1};
  std::vector<int> dilations = {1, 1};
  std::string data_format = "NCHW";
  bool bias = false;
};

void CheckDepthwise(const Depthwise& d) {
  SCOPED_TRACE("c=" + std::to_string(d.c) + " multiplier=" +
               std::to_string(d.multiplier) + " " + d.data_format);
  const framework::DDim input = d.data_format == "NHWC"
                                    ? framework::DDim{d.n, d.h, d.w, d.c}
                                    : framework::DDim{d.n, d.c, d.h, d.w};
  const int64_t m = d.c * d.multiplier;
  OpTester t("depthwise_conv2d");
  t.Input("Input", RandomTensor<float>(input, -1, 1, 3))
      .Input("Filter", RandomTensor<float>({m, 1, d.k, d.k}, -1, 1, 4));
  if (d.bias) t.Input("Bias", RandomTensor<float>({m}, -1, 1, 5));
  t.Output("Output");
  RunAllKernelsWith(&t, {{"strides", d.strides},
                         {"paddings", d.paddings},
                         {"dilations", d.dilations},
                         {"groups", static_cast<int>(d.c)},
                         {"data_format", d.data_format}});
}

TEST(DepthwiseConv2dMkldnn, HasKernel) {
  ExpectMkldnnKernel("depthwise_conv2d");
}

TEST(DepthwiseConv2dMkldnn, Geometry) {
  Depthwise d;
  CheckDepthwise(d);
  d.strides = {2, 2};
  d.h = 13;
  d.w = 12;
  CheckDepthwise(d);
  d.paddings = {0, 2, 1, 0};
  d.dilations = {2, 1};
  d.k = 5;
  CheckDepthwise(d);
  d = Depthwise();
  d.paddings = {0, 0};
  d.h = d.w = 4;  // stride 2 does not fit the last window
  d.strides = {2, 2};
  CheckDepthwise(d);
}

TEST(DepthwiseConv2dMkldnn, MultiplierAndBias) {
  Depthwise d;
  d.multiplier = 2;
  d.bias = true;
  CheckDepthwise(d);
  d.c = 3;
  d.n = 2;
  CheckDepthwise(d);
}

TEST(DepthwiseConv2dMkldnn, ManyChannelsAndNhwc) {
  Depthwise d;
  d.c = 48;
  d.h = d.w = 20;
  d.bias = true;
  CheckDepthwise(d);
  d.strides = {2, 2};
  d.k = 5;
  d.paddings = {2, 2};
  CheckDepthwise(d);
  d.data_format = "NHWC";
  CheckDepthwise(d);
  d.multiplier = 2;
  CheckDepthwise(d);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
