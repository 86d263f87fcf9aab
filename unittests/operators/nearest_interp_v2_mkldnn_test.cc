// nearest_interp_v2 through the MKLDNN kernel against PLAIN: whole upsampling
// factors (the oneDNN path), other factors, downsampling and align_corners
// (PLAIN), NHWC, 3-D and 5-D inputs, scales that agree or not with the sizes.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

void Check(const framework::DDim& x, MkldnnAttrs attrs) {
  attrs.push_back({"interp_method", std::string("nearest")});
  CheckUnaryAllKernels("nearest_interp_v2", RandomTensor<float>(x, -3, 3, 91),
                       attrs);
}

MkldnnAttrs Size(int h, int w, MkldnnAttrs more = {}) {
  more.push_back({"align_corners", false});
  more.push_back({"out_h", h});
  more.push_back({"out_w", w});
  return more;
}

TEST(NearestInterpV2Mkldnn, HasKernel) {
  ExpectMkldnnKernel("nearest_interp_v2");
}

TEST(NearestInterpV2Mkldnn, Sizes) {
  Check({2, 3, 12, 10}, Size(24, 30));
  Check({2, 3, 12, 10}, Size(24, 10));
  Check({1, 4, 12, 10}, Size(18, 25));
  Check({1, 4, 12, 10}, Size(6, 5));
  Check({1, 4, 12, 10}, Size(7, 13));
  Check({1, 4, 12, 10}, Size(1, 20));
  Check({1, 4, 1, 10}, Size(1, 20));
  Check({1, 4, 12, 10}, Size(12, 10));  // same size: a copy
  Check({2, 12, 10, 5}, Size(24, 20, {{"data_layout", std::string("NHWC")}}));
  Check({1, 4, 12, 10}, Size(24, 20, {{"align_corners", true}}));
  Check({1, 4, 12, 10}, Size(24, 20, {{"align_mode", 1}}));
}

TEST(NearestInterpV2Mkldnn, Scales) {
  Check({1, 4, 12, 10}, Size(0, 0, {{"scale", std::vector<float>{2.f, 2.f}}}));
  Check({1, 4, 12, 10}, Size(0, 0, {{"scale", std::vector<float>{3.f, 0.5f}}}));
  Check({1, 4, 12, 10},
        Size(0, 0, {{"scale", std::vector<float>{1.5f, 2.5f}}}));
  // The scale sets Paddle's ratio even when OutSize overrides the size.
  OpTester t("nearest_interp_v2");
  t.Input("X", RandomTensor<float>({1, 4, 12, 10}, -3, 3, 92))
      .Input("OutSize", MakeTensor<int32_t>({2}, {24, 20}))
      .Output("Out");
  RunAllKernelsWith(&t, Size(0, 0, {{"scale", std::vector<float>{3.f, 3.f}}}));
}

TEST(NearestInterpV2Mkldnn, OtherRanks) {
  Check({2, 3, 10}, {{"align_corners", false},
                     {"out_w", 30},
                     {"data_layout", std::string("NCW")}});
  Check({2, 3, 10}, {{"align_corners", false},
                     {"out_w", 15},
                     {"data_layout", std::string("NCW")}});
  Check({1, 2, 4, 6, 5}, {{"align_corners", false},
                          {"out_d", 8},
                          {"out_h", 12},
                          {"out_w", 10},
                          {"data_layout", std::string("NCDHW")}});
  Check({1, 4, 6, 5, 3}, {{"align_corners", false},
                          {"out_d", 8},
                          {"out_h", 12},
                          {"out_w", 15},
                          {"data_layout", std::string("NDHWC")}});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
