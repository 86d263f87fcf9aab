// scale through the MKLDNN kernel (oneDNN's eltwise_linear) against PLAIN,
// on tensors large enough for the oneDNN path: bias after and before the
// scale (oneDNN only when that rounds the same), and a ScaleTensor (PLAIN).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

TEST(ScaleMkldnn, HasKernel) { ExpectMkldnnKernel("scale"); }

TEST(ScaleMkldnn, MatchesPlain) {
  for (const framework::DDim& dims :
       std::vector<framework::DDim>{{13}, {64, 64}, {2, 16, 33, 17}, {4097}}) {
    const auto x = RandomTensor<float>(dims, -3, 3);
    CheckUnaryAllKernels("scale", x);
    CheckUnaryAllKernels("scale", x, {{"scale", 1.f}, {"bias", 1.f}});
    CheckUnaryAllKernels("scale", x, {{"scale", -0.5f}, {"bias", 2.f}});
    CheckUnaryAllKernels(
        "scale", x,
        {{"scale", 3.f}, {"bias", 0.25f}, {"bias_after_scale", false}});
    CheckUnaryAllKernels(
        "scale", x,
        {{"scale", 1.f}, {"bias", 0.25f}, {"bias_after_scale", false}});
  }
}

TEST(ScaleMkldnn, ScaleTensorOverridesTheAttribute) {
  OpTester t("scale");
  t.Input("X", RandomTensor<float>({64, 80}, -3, 3))
      .Input("ScaleTensor", MakeTensor<float>({1}, {2.5f}))
      .Output("Out")
      .Attr("scale", 7.f)
      .Attr("bias", 1.f);
  t.RunAllKernels(kMkldnnTolerance, kMkldnnTolerance);
  t.Run(framework::LibraryType::MKLDNN());
  EXPECT_NEAR(t.GetOutput("Out").data<float>()[0],
              2.5f * RandomTensor<float>({64, 80}, -3, 3).data<float>()[0] + 1,
              1e-5);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
