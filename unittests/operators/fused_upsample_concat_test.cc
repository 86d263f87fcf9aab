// fused_upsample_concat against what it replaces, nearest_interp_v2 (scale
// attribute) then concat along channels, run as those ops: whole and
// fractional scales, parts taken as they are, 1-pixel and 1-channel
// inputs, a batch of several, empty inputs, and the errors of inputs that
// do not fit. Results must be the same bits (copies only).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DDim;
using framework::Tensor;

struct Part {
  DDim dims;
  float scale_h;
  float scale_w;
};

// nearest_interp_v2 of each part whose scale is not 1, then concat.
Tensor Reference(const std::vector<Part>& parts,
                 const std::vector<Tensor>& xs) {
  std::vector<Tensor> joined;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].scale_h == 1.f && parts[i].scale_w == 1.f) {
      joined.push_back(xs[i]);
      continue;
    }
    OpTester up("nearest_interp_v2");
    up.Input("X", xs[i])
        .Output("Out")
        .Attr("scale", std::vector<float>{parts[i].scale_h, parts[i].scale_w})
        .Attr("align_corners", false)
        .Attr("interp_method", std::string("nearest"));
    up.Run();
    joined.push_back(up.GetOutput("Out"));
  }
  OpTester concat("concat");
  concat.Inputs("X", joined).Output("Out").Attr("axis", 1);
  concat.Run();
  return concat.GetOutput("Out");
}

OpTester Fused(const std::vector<Part>& parts, const std::vector<Tensor>& xs) {
  std::vector<float> scale_h;
  std::vector<float> scale_w;
  for (const Part& p : parts) {
    scale_h.push_back(p.scale_h);
    scale_w.push_back(p.scale_w);
  }
  OpTester t("fused_upsample_concat");
  t.Inputs("X", xs)
      .Output("Out")
      .Attr("scale_h", scale_h)
      .Attr("scale_w", scale_w);
  return t;
}

void Check(const std::vector<Part>& parts) {
  std::vector<Tensor> xs;
  for (size_t i = 0; i < parts.size(); ++i) {
    xs.push_back(RandomTensor<float>(parts[i].dims, -3, 3,
                                     static_cast<uint32_t>(40 + i)));
  }
  const Tensor expected = Reference(parts, xs);
  OpTester t = Fused(parts, xs);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), expected, 0, 0);
  // The MKLDNN kernel (plain inputs: it hands them to PLAIN).
  OpTester all = Fused(parts, xs);
  all.RunAllKernels(0, 0);
}

TEST(FusedUpsampleConcatOp, AFeaturePyramidsHead) {
  // DBNet's: levels upsampled by 8, 4 and 2 joined with the finest.
  Check({{{1, 4, 3, 5}, 8.f, 8.f},
         {{1, 4, 6, 10}, 4.f, 4.f},
         {{1, 4, 12, 20}, 2.f, 2.f},
         {{1, 4, 24, 40}, 1.f, 1.f}});
  // Several images, the part taken as it is first, odd channel counts.
  Check({{{3, 5, 8, 6}, 1.f, 1.f},
         {{3, 3, 4, 3}, 2.f, 2.f},
         {{3, 1, 2, 1}, 4.f, 6.f}});
}

TEST(FusedUpsampleConcatOp, FractionalAndUnevenScales) {
  Check({{{1, 2, 4, 6}, 1.5f, 2.5f}, {{1, 3, 6, 15}, 1.f, 1.f}});
  Check({{{2, 2, 5, 7}, 3.f, 0.5f}, {{2, 2, 15, 3}, 1.f, 1.f}});
  // A single input: an upsampling alone.
  Check({{{1, 6, 3, 3}, 3.f, 3.f}});
}

TEST(FusedUpsampleConcatOp, OnePixelAndOneChannel) {
  Check({{{1, 1, 1, 1}, 5.f, 7.f}, {{1, 1, 5, 7}, 1.f, 1.f}});
  Check({{{1, 9, 1, 1}, 1.f, 1.f}, {{1, 1, 1, 1}, 1.f, 1.f}});
}

TEST(FusedUpsampleConcatOp, EmptyInputsAreSkippedAsConcatSkipsThem) {
  const Tensor a = RandomTensor<float>({1, 2, 3, 3}, -1, 1, 1);
  const Tensor empty = RandomTensor<float>({1, 0, 3, 3}, -1, 1, 2);
  const Tensor b = RandomTensor<float>({1, 3, 6, 6}, -1, 1, 3);
  OpTester t = Fused(
      {{a.dims(), 2.f, 2.f}, {empty.dims(), 2.f, 2.f}, {b.dims(), 1.f, 1.f}},
      {a, empty, b});
  t.Run();
  const Tensor expected =
      Reference({{a.dims(), 2.f, 2.f}, {b.dims(), 1.f, 1.f}}, {a, b});
  ExpectTensorNear(t.GetOutput("Out"), expected, 0, 0);
  // No images at all: an empty output of the joined channels.
  OpTester none = Fused({{{0, 2, 3, 3}, 2.f, 2.f}, {{0, 3, 6, 6}, 1.f, 1.f}},
                        {RandomTensor<float>({0, 2, 3, 3}, -1, 1, 4),
                         RandomTensor<float>({0, 3, 6, 6}, -1, 1, 5)});
  none.Run();
  EXPECT_EQ(none.GetOutput("Out").dims(), (DDim{0, 5, 6, 6}));
}

TEST(FusedUpsampleConcatOp, InputsThatDoNotFitAreErrors) {
  auto run = [](const std::vector<Part>& parts) {
    std::vector<Tensor> xs;
    for (const Part& p : parts) {
      xs.push_back(RandomTensor<float>(p.dims, -1, 1, 7));
    }
    OpTester t = Fused(parts, xs);
    t.Run();
  };
  ExpectError(
      [&] {
        run({{{1, 2, 3, 3}, 2.f, 2.f}, {{1, 2, 5, 6}, 1.f, 1.f}});
      },
      ErrorCode::kInvalidArgument,
      {"fused_upsample_concat", "X[1]", "5 x 6", "6 x 6"});
  ExpectError(
      [&] {
        run({{{1, 2, 3, 3}, 2.f, 2.f}, {{2, 2, 6, 6}, 1.f, 1.f}});
      },
      ErrorCode::kInvalidArgument, {"X[1]", "2 images"});
  ExpectError(
      [&] {
        run({{{1, 2, 3, 3}, 0.f, 2.f}});
      },
      ErrorCode::kInvalidArgument, {"scales of X[0]", "positive"});
  ExpectError(
      [&] {
        run({{{2, 3, 3}, 2.f, 2.f}});
      },
      ErrorCode::kInvalidArgument, {"X[0]", "4-D"});
  ExpectError(
      [&] {
        run({{{1, 2, 3, 3}, 0.2f, 0.2f}});
      },
      ErrorCode::kInvalidArgument, {"X[0]", "no pixels"});
  ExpectError(
      [&] {
        run({{{1, 2, 3, 3}, 1e30f, 2.f}});
      },
      ErrorCode::kInvalidArgument, {"X[0]", "over 2^31"});
  ExpectError(
      [&] {
        OpTester t("fused_upsample_concat");
        t.Inputs("X", {RandomTensor<float>({1, 2, 3, 3}, -1, 1, 8)})
            .Output("Out")
            .Attr("scale_h", std::vector<float>{2.f, 2.f})
            .Attr("scale_w", std::vector<float>{2.f});
        t.Run();
      },
      ErrorCode::kInvalidArgument, {"one value per input (1)", "2 and 1"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
