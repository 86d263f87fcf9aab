#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/interp_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;

const std::vector<float> kX2x2 = {1, 2, 3, 4};

TEST(NearestInterpV2Op, UpsampleWithoutAlignCorners) {
  // ratio 2/4: source index int(0.5 * k) = 0, 0, 1, 1.
  OpTester t("nearest_interp_v2");
  t.Input("X", MakeTensor<float>({1, 1, 2, 2}, kX2x2))
      .Output("Out")
      .Attr("out_h", 4)
      .Attr("out_w", 4)
      .Attr("align_corners", false);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({1, 1, 4, 4}, {1, 1, 2, 2,  //
                                                    1, 1, 2, 2,  //
                                                    3, 3, 4, 4,  //
                                                    3, 3, 4, 4}));
}

TEST(NearestInterpV2Op, AlignCornersIsTheDefault) {
  // align_corners absent = true: ratio (2-1)/(3-1), index int(0.5k + 0.5)
  // = 0, 1, 1. align_mode is ignored by nearest.
  OpTester t("nearest_interp_v2");
  t.Input("X", MakeTensor<float>({1, 1, 2, 2}, kX2x2))
      .Output("Out")
      .Attr("out_h", 3)
      .Attr("out_w", 3)
      .Attr("align_mode", 0);
  t.Run();
  ExpectTensorNear(
      t.GetOutput("Out"),
      MakeTensor<float>({1, 1, 3, 3}, {1, 2, 2, 3, 4, 4, 3, 4, 4}));
}

TEST(NearestInterpV2Op, DownsampleAndOnePixelOutput) {
  OpTester t("nearest_interp_v2");
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[i] = static_cast<float>(i);
  t.Input("X", MakeTensor<float>({1, 1, 4, 4}, x))
      .Output("Out")
      .Attr("out_h", 2)
      .Attr("out_w", 2)
      .Attr("align_corners", false);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({1, 1, 2, 2}, {0, 2, 8, 10}));

  OpTester one("nearest_interp_v2");
  one.Input("X", MakeTensor<float>({1, 1, 4, 4}, x))
      .Output("Out")
      .Attr("out_h", 1)
      .Attr("out_w", 1);
  one.Run();
  ExpectTensorNear(one.GetOutput("Out"), MakeTensor<float>({1, 1, 1, 1}, {0}));
}

TEST(NearestInterpV2Op, ScaleAttributeBeatsOutHw) {
  OpTester t("nearest_interp_v2");
  t.Input("X", MakeTensor<float>({1, 1, 2, 2}, kX2x2))
      .Output("Out")
      .Attr("out_h", 7)
      .Attr("out_w", 7)
      .Attr("scale", std::vector<float>{2.f, 1.f})
      .Attr("align_corners", false);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({1, 1, 4, 2}, {1, 2, 1, 2, 3, 4, 3, 4}));
}

TEST(NearestInterpV2Op, OneValueScaleAttributeIsIgnoredFor2D) {
  // A 2-D resize needs a value per axis; [3] falls back to out_h/out_w.
  OpTester t("nearest_interp_v2");
  t.Input("X", MakeTensor<float>({1, 1, 2, 2}, kX2x2))
      .Output("Out")
      .Attr("out_h", 1)
      .Attr("out_w", 2)
      .Attr("scale", std::vector<float>{3.f})
      .Attr("align_corners", false);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({1, 1, 1, 2}, {1, 2}));
}

TEST(NearestInterpV2Op, NonPositiveScaleFallsBackToOutHw) {
  OpTester t("nearest_interp_v2");
  t.Input("X", MakeTensor<float>({1, 1, 2, 2}, kX2x2))
      .Output("Out")
      .Attr("out_h", 2)
      .Attr("out_w", 1)
      .Attr("scale", std::vector<float>{-1.f, -1.f})
      .Attr("align_corners", false);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({1, 1, 2, 1}, {1, 3}));
}

TEST(NearestInterpV2Op, SizeInputsPriority) {
  // SizeTensor beats OutSize, the Scale tensor and the attributes.
  OpTester t("nearest_interp_v2");
  t.Input("X", MakeTensor<float>({1, 1, 2, 2}, kX2x2))
      .Inputs("SizeTensor",
              {MakeTensor<int32_t>({1}, {1}), MakeTensor<int32_t>({1}, {3})})
      .Input("OutSize", MakeTensor<int32_t>({2}, {5, 5}))
      .Input("Scale", MakeTensor<float>({1}, {4.f}))
      .Output("Out")
      .Attr("out_h", 6)
      .Attr("out_w", 6)
      .Attr("align_corners", false);
  t.Run();
  EXPECT_EQ(t.GetOutput("Out").dims(), (framework::DDim{1, 1, 1, 3}));

  // OutSize beats the Scale tensor, which beats the scale attribute.
  OpTester u("nearest_interp_v2");
  u.Input("X", MakeTensor<float>({1, 1, 2, 2}, kX2x2))
      .Input("OutSize", MakeTensor<int32_t>({2}, {5, 1}))
      .Input("Scale", MakeTensor<float>({1}, {4.f}))
      .Output("Out")
      .Attr("scale", std::vector<float>{2.f, 2.f})
      .Attr("align_corners", false);
  u.Run();
  EXPECT_EQ(u.GetOutput("Out").dims(), (framework::DDim{1, 1, 5, 1}));

  OpTester v("nearest_interp_v2");
  v.Input("X", MakeTensor<float>({1, 1, 2, 2}, kX2x2))
      .Input("Scale", MakeTensor<float>({2}, {1.5f, 3.f}))
      .Output("Out")
      .Attr("scale", std::vector<float>{2.f, 2.f})
      .Attr("out_h", 6)
      .Attr("align_corners", false);
  v.Run();
  EXPECT_EQ(v.GetOutput("Out").dims(), (framework::DDim{1, 1, 3, 6}));
}

TEST(NearestInterpV2Op, OutSizeKeepsTheScaleRatio) {
  // Scale 0.5 would give 2 columns; OutSize asks for 3, but the source
  // index still uses 1 / 0.5 = 2: columns 0, 2, 4 (in / out would give
  // 0, 1, 3).
  OpTester t("nearest_interp_v2");
  t.Input("X", MakeTensor<float>({1, 1, 1, 5}, {10, 11, 12, 13, 14}))
      .Input("OutSize", MakeTensor<int32_t>({2}, {1, 3}))
      .Output("Out")
      .Attr("scale", std::vector<float>{1.f, 0.5f})
      .Attr("align_corners", false);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({1, 1, 1, 3}, {10, 12, 14}));
}

// A scale so small that OutSize's positions run past the input (or an
// infinite ratio, NaN at 0) takes the last pixel: converting such a
// position would be undefined (found by auditing for the fuzzer).
TEST(NearestInterpV2Op, ExtremeScaleWithOutSizeTakesTheLastPixel) {
  // align_corners ignores the scale; without it the ratio is 1 / scale.
  for (float scale : {1e-20f, 1e-40f}) {
    OpTester t("nearest_interp_v2");
    t.Input("X", MakeTensor<float>({1, 1, 1, 5}, {10, 11, 12, 13, 14}))
        .Input("OutSize", MakeTensor<int32_t>({2}, {1, 3}))
        .Output("Out")
        .Attr("scale", std::vector<float>{1.f, scale})
        .Attr("align_corners", false);
    t.Run();
    const std::vector<float> got = ToVector<float>(t.GetOutput("Out"));
    ASSERT_EQ(got.size(), 3u);
    // Position 0 is 0 for a finite ratio, NaN (the last pixel) for an
    // infinite one; the others are past the input.
    EXPECT_EQ(got[0], scale == 1e-20f ? 10 : 14) << scale;
    EXPECT_EQ(got[1], 14) << scale;
    EXPECT_EQ(got[2], 14) << scale;
  }
}

// The oneDNN kernel's check of whether it matches Paddle's indexes meets
// the same positions: it declines them rather than convert them.
TEST(NearestInterpV2Op, ExtremeScaleOnEveryKernel) {
  OpTester t("nearest_interp_v2");
  t.Input("X", RandomTensor<float>({1, 2, 1, 1}))
      .Input("OutSize", MakeTensor<int32_t>({2}, {1, 3}))
      .Output("Out")
      .Attr("scale", std::vector<float>{1.f, 1e-20f})
      .Attr("align_corners", false);
  t.RunAllKernels();
}

TEST(NearestInterpV2Op, SameSizeCopiesWhateverTheScale) {
  OpTester t("nearest_interp_v2");
  t.Input("X", MakeTensor<float>({1, 1, 2, 2}, kX2x2))
      .Input("OutSize", MakeTensor<int32_t>({2}, {2, 2}))
      .Output("Out")
      .Attr("scale", std::vector<float>{3.f, 3.f})
      .Attr("align_corners", false);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({1, 1, 2, 2}, kX2x2));
}

TEST(NearestInterpV2Op, NhwcLayout) {
  // Channels last: each pixel's [c0, c1] pair moves as a whole.
  OpTester t("nearest_interp_v2");
  t.Input("X", MakeTensor<float>({1, 1, 2, 2}, {1, 10, 2, 20}))
      .Output("Out")
      .Attr("out_h", 1)
      .Attr("out_w", 4)
      .Attr("align_corners", false)
      .Attr("data_layout", std::string("NHWC"));
  t.Run();
  ExpectTensorNear(
      t.GetOutput("Out"),
      MakeTensor<float>({1, 1, 4, 2}, {1, 10, 1, 10, 2, 20, 2, 20}));
}

TEST(NearestInterpV2Op, Rank3And5Inputs) {
  OpTester t("nearest_interp_v2");
  t.Input("X", MakeTensor<float>({1, 1, 3}, {1, 2, 3}))
      .Output("Out")
      .Attr("out_w", 6)
      .Attr("align_corners", false);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({1, 1, 6}, {1, 1, 2, 2, 3, 3}));

  // 5-D: a 2x1x1 volume doubled in depth via a 3-value scale.
  OpTester v("nearest_interp_v2");
  v.Input("X", MakeTensor<float>({1, 1, 2, 1, 1}, {5, 7}))
      .Output("Out")
      .Attr("scale", std::vector<float>{2.f, 1.f, 2.f})
      .Attr("align_corners", false)
      .Attr("data_layout", std::string("NCDHW"));
  v.Run();
  ExpectTensorNear(
      v.GetOutput("Out"),
      MakeTensor<float>({1, 1, 4, 1, 2}, {5, 5, 5, 5, 7, 7, 7, 7}));
}

TEST(NearestInterpV2Op, IntegerTypes) {
  OpTester t("nearest_interp_v2");
  t.Input("X", MakeTensor<int32_t>({1, 1, 2, 2}, {1, 2, 3, 4}))
      .Output("Out", DataType::kInt32)
      .Attr("out_h", 3)
      .Attr("out_w", 3);
  t.Run();
  ExpectTensorNear(
      t.GetOutput("Out"),
      MakeTensor<int32_t>({1, 1, 3, 3}, {1, 2, 2, 3, 4, 4, 3, 4, 4}));

  OpTester u("nearest_interp_v2");
  u.Input("X", MakeTensor<uint8_t>({1, 2, 1, 1}, {200, 7}))
      .Output("Out", DataType::kUInt8)
      .Attr("out_h", 2)
      .Attr("out_w", 1);
  u.Run();
  ExpectTensorNear(u.GetOutput("Out"),
                   MakeTensor<uint8_t>({1, 2, 2, 1}, {200, 200, 7, 7}));

  OpTester v("nearest_interp_v2");
  v.Input("X", MakeTensor<int64_t>({1, 1, 1, 2}, {-5, 1ll << 40}))
      .Output("Out", DataType::kInt64)
      .Attr("out_h", 1)
      .Attr("out_w", 4)
      .Attr("align_corners", false);
  v.Run();
  ExpectTensorNear(
      v.GetOutput("Out"),
      MakeTensor<int64_t>({1, 1, 1, 4}, {-5, -5, 1ll << 40, 1ll << 40}));
}

TEST(NearestInterpV2Op, MatchesNaiveReference) {
  for (const auto& k : ResizeCases()) {
    CheckResizeCase<float>("nearest_interp_v2", "nearest", k);
  }
  for (const auto& k : ResizeCases()) {
    CheckResizeCase<double>("nearest_interp_v2", "nearest", k, /*threads=*/2);
  }
}

TEST(NearestInterpV2Op, EmptyBatch) {
  OpTester t("nearest_interp_v2");
  t.Input("X", MakeTensor<float>({0, 3, 2, 2}, {}))
      .Output("Out")
      .Attr("out_h", 4)
      .Attr("out_w", 5);
  t.Run();
  EXPECT_EQ(t.GetOutput("Out").dims(), (framework::DDim{0, 3, 4, 5}));
}

TEST(NearestInterpV2Op, RunAllKernels) {
  OpTester t("nearest_interp_v2");
  t.Input("X", RandomTensor<float>({2, 3, 5, 6}))
      .Output("Out")
      .Attr("out_h", 11)
      .Attr("out_w", 4);
  t.RunAllKernels();
}

TEST(NearestInterpV2Op, Errors) {
  {
    OpTester t("nearest_interp_v2");
    t.Input("X", MakeTensor<float>({2, 2}, kX2x2)).Output("Out");
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"nearest_interp_v2", "[2, 2]", "3-D, 4-D or 5-D"});
  }
  {
    // No size from anywhere: out_h/out_w default to 0.
    OpTester t("nearest_interp_v2");
    t.Input("X", MakeTensor<float>({1, 1, 2, 2}, kX2x2)).Output("Out");
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"nearest_interp_v2", "not positive", "[1, 1, 2, 2]"});
  }
  {
    OpTester t("nearest_interp_v2");
    t.Input("X", MakeTensor<float>({1, 1, 2, 2}, kX2x2))
        .Input("OutSize", MakeTensor<int32_t>({3}, {1, 2, 3}))
        .Output("Out");
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"nearest_interp_v2", "OutSize", "2 output sizes", "got 3"});
  }
  {
    OpTester t("nearest_interp_v2");
    t.Input("X", MakeTensor<float>({1, 1, 2, 2}, kX2x2))
        .Inputs("SizeTensor", {MakeTensor<int32_t>({1}, {4})})
        .Output("Out");
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"nearest_interp_v2", "SizeTensor", "got 1"});
  }
  {
    OpTester t("nearest_interp_v2");
    t.Input("X", MakeTensor<float>({1, 1, 2, 2}, kX2x2))
        .Input("OutSize", MakeTensor<float>({2}, {3, 3}))
        .Output("Out");
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"nearest_interp_v2", "OutSize", "int32 or int64"});
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
