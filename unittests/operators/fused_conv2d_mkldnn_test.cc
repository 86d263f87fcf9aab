// fused_conv2d through the MKLDNN kernel (the activation as a oneDNN
// post-op) against PLAIN: every fuse_activation with its parameters, with
// and without bias, grouped, depthwise and NHWC; relu6 with a negative
// threshold runs PLAIN.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

struct MkldnnConvActivation {
  std::string type;
  float alpha = 0.f;
  float beta = 0.f;
};

void CheckFusedConv(const MkldnnConvActivation& act,
                    int64_t c,
                    int64_t m,
                    int groups,
                    const std::string& data_format,
                    bool bias) {
  SCOPED_TRACE("fuse_activation '" + act.type + "' groups " +
               std::to_string(groups) + " " + data_format);
  const int64_t h = 15, w = 13;
  const framework::DDim input = data_format == "NHWC"
                                    ? framework::DDim{2, h, w, c}
                                    : framework::DDim{2, c, h, w};
  OpTester t("fused_conv2d");
  t.Input("Input", RandomTensor<float>(input, -1, 1, 201))
      .Input("Filter", RandomTensor<float>({m, c / groups, 3, 3}, -1, 1, 202));
  if (bias) t.Input("Bias", RandomTensor<float>({m}, -1, 1, 203));
  t.Output("Output");
  RunAllKernelsWith(&t, {{"strides", std::vector<int>{2, 1}},
                         {"paddings", std::vector<int>{1, 1}},
                         {"groups", groups},
                         {"data_format", data_format},
                         {"fuse_activation", act.type},
                         {"fuse_alpha", act.alpha},
                         {"fuse_beta", act.beta}});
}

TEST(FusedConv2dMkldnn, HasKernel) { ExpectMkldnnKernel("fused_conv2d"); }

TEST(FusedConv2dMkldnn, EveryActivation) {
  const std::vector<MkldnnConvActivation> activations = {
      {""},
      {"relu"},
      {"relu6", 0.f, 6.f},
      {"relu6", 0.f, 0.5f},
      {"relu6", 0.f, -1.f},
      {"leaky_relu", 0.1f},
      {"hard_swish"},
      {"sigmoid"},
      {"swish", 1.f},
      {"swish", 0.5f},
      {"hard_sigmoid", 0.2f, 0.5f},
      {"hard_sigmoid", 1.f / 6, 0.5f}};
  for (const MkldnnConvActivation& act : activations) {
    CheckFusedConv(act, 8, 16, 1, "NCHW", /*bias=*/true);
    CheckFusedConv(act, 16, 16, 16, "NCHW", /*bias=*/true);  // depthwise
  }
  CheckFusedConv({"hard_swish"}, 8, 12, 2, "NHWC", /*bias=*/false);
  CheckFusedConv({"relu"}, 32, 64, 1, "NCHW", /*bias=*/false);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
