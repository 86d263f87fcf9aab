#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/interp_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;

/// Resizes the row [1, 1, 1, in.size()] to width `out_w`.
std::vector<float> ResizeRow(const std::vector<float>& in,
                             int out_w,
                             bool align_corners,
                             int align_mode) {
  OpTester t("bilinear_interp_v2");
  t.Input("X",
          MakeTensor<float>({1, 1, 1, static_cast<int64_t>(in.size())}, in))
      .Output("Out")
      .Attr("out_h", 1)
      .Attr("out_w", out_w)
      .Attr("align_corners", align_corners)
      .Attr("align_mode", align_mode);
  t.Run();
  return ToVector<float>(t.GetOutput("Out"));
}

TEST(BilinearInterpV2Op, AlignCornersDefault) {
  // Attributes absent: align_corners = true maps corners onto corners.
  OpTester t("bilinear_interp_v2");
  t.Input("X", MakeTensor<float>({1, 1, 2, 2}, {0, 1, 2, 3}))
      .Output("Out")
      .Attr("out_h", 3)
      .Attr("out_w", 3);
  t.Run();
  ExpectTensorNear(
      t.GetOutput("Out"),
      MakeTensor<float>({1, 1, 3, 3}, {0, 0.5f, 1, 1, 1.5f, 2, 2, 2.5f, 3}));
}

TEST(BilinearInterpV2Op, HalfPixelAndAsymmetricUpsample) {
  // align_mode 0 (half pixel): src = max(0.5 (k + 0.5) - 0.5, 0) =
  // 0, 0.25, 0.75, 1.25 (clamped to the last pixel).
  EXPECT_EQ(ResizeRow({0, 4}, 4, false, 0), (std::vector<float>{0, 1, 3, 4}));
  // align_mode 1 (asymmetric): src = 0.5 k = 0, 0.5, 1, 1.5.
  EXPECT_EQ(ResizeRow({0, 4}, 4, false, 1), (std::vector<float>{0, 2, 4, 4}));
  // align_corners ignores align_mode: src = k / 3.
  auto got = ResizeRow({0, 3}, 4, true, 0);
  ExpectTensorNear(MakeTensor<float>({4}, got),
                   MakeTensor<float>({4}, {0, 1, 2, 3}));
}

// A scale so small that OutSize's positions run past the input: both taps
// are the last pixel, weighted alone (not by a huge lambda, which gave 0 or
// NaN), and no position is converted out of range.
TEST(BilinearInterpV2Op, ExtremeScaleWithOutSizeTakesTheLastPixel) {
  for (int align_mode : {0, 1}) {  // half-pixel, asymmetric
    OpTester t("bilinear_interp_v2");
    t.Input("X", MakeTensor<float>({1, 1, 1, 5}, {10, 11, 12, 13, 14}))
        .Input("OutSize", MakeTensor<int32_t>({2}, {1, 3}))
        .Output("Out")
        .Attr("scale", std::vector<float>{1.f, 1e-20f})
        .Attr("align_corners", false)
        .Attr("align_mode", align_mode);
    t.Run();
    // Asymmetric position 0 is 0; half-pixel's is 0.5e20 - 0.5.
    ExpectTensorNear(t.GetOutput("Out"),
                     MakeTensor<float>({1, 1, 1, 3},
                                       {align_mode == 1 ? 10.f : 14.f, 14, 14}),
                     0, 0);
  }
}

TEST(BilinearInterpV2Op, Downsample) {
  const std::vector<float> x = {0, 1, 2, 3};
  EXPECT_EQ(ResizeRow(x, 2, false, 0), (std::vector<float>{0.5f, 2.5f}));
  EXPECT_EQ(ResizeRow(x, 2, false, 1), (std::vector<float>{0, 2}));
  EXPECT_EQ(ResizeRow(x, 2, true, 1), (std::vector<float>{0, 3}));
}

TEST(BilinearInterpV2Op, OnePixelOutputTakesTheFirstPixel) {
  for (int mode : {0, 1}) {
    for (bool align : {false, true}) {
      EXPECT_EQ(ResizeRow({5, 6, 7}, 1, align, mode), (std::vector<float>{5}));
    }
  }
}

TEST(BilinearInterpV2Op, OutSizeKeepsTheScaleRatio) {
  // scale 2 would give 8 columns; OutSize asks for 6 but the ratio stays
  // 1/2 (in / out would be 2/3).
  OpTester t("bilinear_interp_v2");
  t.Input("X", MakeTensor<float>({1, 1, 1, 4}, {0, 1, 2, 3}))
      .Input("OutSize", MakeTensor<int32_t>({2}, {1, 6}))
      .Output("Out")
      .Attr("scale", std::vector<float>{1.f, 2.f})
      .Attr("align_corners", false)
      .Attr("align_mode", 1);
  t.Run();
  ExpectTensorNear(
      t.GetOutput("Out"),
      MakeTensor<float>({1, 1, 1, 6}, {0, 0.5f, 1, 1.5f, 2, 2.5f}));
}

TEST(BilinearInterpV2Op, ScaleTensorRatioAndSize) {
  // One Scale value applies to both axes: 1x3 -> 1x4 (int(3 * 1.5)),
  // ratio 1 / 1.5 (in / out would be 3/4).
  OpTester t("bilinear_interp_v2");
  t.Input("X", MakeTensor<float>({1, 1, 1, 3}, {0, 3, 6}))
      .Input("Scale", MakeTensor<float>({1}, {1.5f}))
      .Output("Out")
      .Attr("out_h", 9)
      .Attr("out_w", 9)
      .Attr("align_corners", false)
      .Attr("align_mode", 1);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({1, 1, 1, 4}, {0, 2, 4, 6}), 1e-5, 1e-5);
}

TEST(BilinearInterpV2Op, Rank3And5Inputs) {
  OpTester t("bilinear_interp_v2");
  t.Input("X", MakeTensor<float>({1, 1, 2}, {0, 2}))
      .Output("Out")
      .Attr("out_w", 3)
      .Attr("data_layout", std::string("NCW"));
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({1, 1, 3}, {0, 1, 2}));

  // 5-D, channel-last: depth 2 -> 3 with align_corners; the two channels
  // interpolate independently.
  OpTester v("bilinear_interp_v2");
  v.Input("X", MakeTensor<float>({1, 2, 1, 1, 2}, {0, 10, 2, 30}))
      .Output("Out")
      .Attr("out_d", 3)
      .Attr("out_h", 1)
      .Attr("out_w", 1)
      .Attr("data_layout", std::string("NDHWC"));
  v.Run();
  ExpectTensorNear(v.GetOutput("Out"),
                   MakeTensor<float>({1, 3, 1, 1, 2}, {0, 10, 1, 20, 2, 30}));
}

TEST(BilinearInterpV2Op, MatchesNaiveReference) {
  for (const auto& k : ResizeCases()) {
    CheckResizeCase<float>("bilinear_interp_v2", "bilinear", k);
  }
  for (const auto& k : ResizeCases()) {
    CheckResizeCase<double>("bilinear_interp_v2", "bilinear", k,
                            /*threads=*/2);
  }
}

TEST(BilinearInterpV2Op, LargeUpsampleTwoThreads) {
  // The 4x upsampling of a detector's segmentation head.
  ResizeCase k;
  k.n = 1;
  k.c = 4;
  k.h = 60;
  k.w = 61;
  k.scale = {4.f, 4.f};
  k.align_mode = 0;
  CheckResizeCase<float>("bilinear_interp_v2", "bilinear", k, /*threads=*/2);
  k.data_layout = "NHWC";
  k.align_corners = true;
  CheckResizeCase<float>("bilinear_interp_v2", "bilinear", k, /*threads=*/2);
}

TEST(BilinearInterpV2Op, RunAllKernels) {
  OpTester t("bilinear_interp_v2");
  t.Input("X", RandomTensor<float>({2, 3, 5, 6}))
      .Output("Out")
      .Attr("out_h", 11)
      .Attr("out_w", 4)
      .Attr("align_corners", false)
      .Attr("align_mode", 0);
  t.RunAllKernels();
}

TEST(BilinearInterpV2Op, Errors) {
  {
    OpTester t("bilinear_interp_v2");
    t.Input("X", MakeTensor<float>({1, 1, 0, 2}, {}))
        .Output("Out")
        .Attr("out_h", 2)
        .Attr("out_w", 2);
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"bilinear_interp_v2", "[1, 1, 0, 2]", "spatial dims"});
  }
  {
    OpTester t("bilinear_interp_v2");
    t.Input("X", MakeTensor<float>({1, 1, 2, 2}, {0, 1, 2, 3}))
        .Input("Scale", MakeTensor<float>({3}, {2, 2, 2}))
        .Output("Out");
    t.Run();  // 3 values: the first two are used
    EXPECT_EQ(t.GetOutput("Out").dims(), (framework::DDim{1, 1, 4, 4}));
  }
  {
    OpTester t("bilinear_interp_v2");
    t.Input("X", MakeTensor<float>({1, 1, 1, 1, 2}, {0, 1}))
        .Input("Scale", MakeTensor<float>({2}, {2, 2}))
        .Output("Out");
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"bilinear_interp_v2", "Scale", "1 or 3 values"});
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
