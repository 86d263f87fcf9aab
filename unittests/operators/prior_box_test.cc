#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;
using framework::Tensor;
using Attrs = std::vector<std::pair<std::string, framework::Attribute>>;

const std::vector<float> kVariances = {0.1f, 0.1f, 0.2f, 0.2f};

struct PriorOutputs {
  Tensor boxes;
  Tensor variances;
};

template <typename T = float>
PriorOutputs RunPriorBox(const framework::DDim& feature,
                         const framework::DDim& image,
                         const Attrs& attrs) {
  OpTester t("prior_box");
  t.Input("Input", RandomTensor<T>(feature))
      .Input("Image", RandomTensor<T>(image))
      .Output("Boxes", framework::ToDataType<T>())
      .Output("Variances", framework::ToDataType<T>());
  for (const auto& kv : attrs) t.Attr(kv.first, kv.second);
  t.Run();
  return {t.GetOutput("Boxes"), t.GetOutput("Variances")};
}

// Runs the PLAIN kernel on 1 and on 3 threads and expects equal outputs.
void ExpectThreadsAgree(OpTester* t, const std::vector<std::string>& slots) {
  t->Run(framework::LibraryType::Plain(), 1);
  std::vector<Tensor> single(slots.size());
  for (size_t i = 0; i < slots.size(); ++i) {
    framework::TensorCopy(t->GetOutput(slots[i]), platform::CPUPlace{},
                          &single[i]);
  }
  t->Run(framework::LibraryType::Plain(), 3);
  for (size_t i = 0; i < slots.size(); ++i) {
    SCOPED_TRACE(slots[i]);
    ExpectTensorNear(t->GetOutput(slots[i]), single[i], 0, 0);
  }
}

// A prior of half extents (hw, hh) around (cx, cy) on an iw x ih image.
std::vector<float> Box(
    double cx, double cy, double hw, double hh, double iw, double ih) {
  return {
      static_cast<float>((cx - hw) / iw), static_cast<float>((cy - hh) / ih),
      static_cast<float>((cx + hw) / iw), static_cast<float>((cy + hh) / ih)};
}

void Append(std::vector<float>* v, const std::vector<float>& more) {
  v->insert(v->end(), more.begin(), more.end());
}

TEST(PriorBoxOp, ByHandOnePriorPerCell) {
  // 2x2 cells on an 8x8 image: step 4, centres 2 and 6.
  auto out = RunPriorBox({1, 8, 2, 2}, {1, 3, 8, 8},
                         {{"min_sizes", std::vector<float>{2}},
                          {"aspect_ratios", std::vector<float>{1}},
                          {"variances", kVariances},
                          {"flip", false},
                          {"clip", false}});
  ExpectTensorNear(
      out.boxes,
      MakeTensor<float>({2, 2, 1, 4}, {1 / 8.f, 1 / 8.f, 3 / 8.f, 3 / 8.f,  //
                                       5 / 8.f, 1 / 8.f, 7 / 8.f, 3 / 8.f,  //
                                       1 / 8.f, 5 / 8.f, 3 / 8.f, 7 / 8.f,  //
                                       5 / 8.f, 5 / 8.f, 7 / 8.f, 7 / 8.f}));
  std::vector<float> var;
  for (int i = 0; i < 4; ++i) Append(&var, kVariances);
  ExpectTensorNear(out.variances, MakeTensor<float>({2, 2, 1, 4}, var));
}

// min size 4, max size 9, ratio 2 flipped: expanded ratios [1, 2, 0.5].
Attrs FlipMaxAttrs(bool min_max_order) {
  return {{"min_sizes", std::vector<float>{4}},
          {"max_sizes", std::vector<float>{9}},
          {"aspect_ratios", std::vector<float>{2}},
          {"variances", kVariances},
          {"flip", true},
          {"clip", false},
          {"min_max_aspect_ratios_order", min_max_order}};
}

TEST(PriorBoxOp, FlipAndMaxSizeOrder) {
  const double r2 = std::sqrt(2.0);
  // One 16x16 cell of a 16x16 image: centre (8, 8).
  auto square = Box(8, 8, 2, 2, 16, 16);
  auto wide = Box(8, 8, 2 * r2, 2 / r2, 16, 16);
  auto tall = Box(8, 8, 2 / r2, 2 * r2, 16, 16);
  auto big = Box(8, 8, 3, 3, 16, 16);  // sqrt(4 * 9) / 2

  std::vector<float> expected;
  for (const auto& b : {square, wide, tall, big}) Append(&expected, b);
  ExpectTensorNear(
      RunPriorBox({1, 1, 1, 1}, {1, 3, 16, 16}, FlipMaxAttrs(false)).boxes,
      MakeTensor<float>({1, 1, 4, 4}, expected));

  expected.clear();
  for (const auto& b : {square, big, wide, tall}) Append(&expected, b);
  ExpectTensorNear(
      RunPriorBox({1, 1, 1, 1}, {1, 3, 16, 16}, FlipMaxAttrs(true)).boxes,
      MakeTensor<float>({1, 1, 4, 4}, expected));
}

TEST(PriorBoxOp, NoFlip) {
  Attrs attrs = FlipMaxAttrs(false);
  attrs[4].second = false;  // flip
  const double r2 = std::sqrt(2.0);
  std::vector<float> expected;
  for (const auto& b :
       {Box(8, 8, 2, 2, 16, 16), Box(8, 8, 2 * r2, 2 / r2, 16, 16),
        Box(8, 8, 3, 3, 16, 16)}) {
    Append(&expected, b);
  }
  ExpectTensorNear(RunPriorBox({1, 1, 1, 1}, {1, 3, 16, 16}, attrs).boxes,
                   MakeTensor<float>({1, 1, 3, 4}, expected));
}

TEST(PriorBoxOp, Clip) {
  // Prior of size 8 around (2, 2) on an 8x8 image spans [-2, 6].
  Attrs attrs = {{"min_sizes", std::vector<float>{8}},
                 {"aspect_ratios", std::vector<float>{1}},
                 {"variances", kVariances},
                 {"flip", false},
                 {"clip", true}};
  ExpectTensorNear(RunPriorBox({1, 1, 2, 2}, {1, 3, 8, 8}, attrs).boxes,
                   MakeTensor<float>({2, 2, 1, 4}, {0, 0, 0.75f, 0.75f,  //
                                                    0.25f, 0, 1, 0.75f,  //
                                                    0, 0.25f, 0.75f, 1,  //
                                                    0.25f, 0.25f, 1, 1}));
  attrs[4].second = false;
  ExpectTensorNear(
      RunPriorBox({1, 1, 2, 2}, {1, 3, 8, 8}, attrs).boxes,
      MakeTensor<float>({2, 2, 1, 4}, {-0.25f, -0.25f, 0.75f, 0.75f,  //
                                       0.25f, -0.25f, 1.25f, 0.75f,   //
                                       -0.25f, 0.25f, 0.75f, 1.25f,   //
                                       0.25f, 0.25f, 1.25f, 1.25f}));
}

TEST(PriorBoxOp, StepAndOffset) {
  // Explicit steps 3 (x) and 5 (y) with offset 0.25 on a 1x2 grid of a
  // 20x10 (w x h) image.
  Attrs attrs = {{"min_sizes", std::vector<float>{2}},
                 {"aspect_ratios", std::vector<float>{1}},
                 {"variances", kVariances},
                 {"flip", false},
                 {"clip", false},
                 {"step_w", 3.0f},
                 {"step_h", 5.0f},
                 {"offset", 0.25f}};
  std::vector<float> expected = Box(0.75, 1.25, 1, 1, 20, 10);
  Append(&expected, Box(3.75, 1.25, 1, 1, 20, 10));
  ExpectTensorNear(RunPriorBox({1, 1, 1, 2}, {1, 3, 10, 20}, attrs).boxes,
                   MakeTensor<float>({1, 2, 1, 4}, expected));

  // Only one explicit step: both fall back to the image / grid ratio
  // (10 and 10 here).
  attrs[6].second = 0.0f;  // step_h
  expected = Box(2.5, 2.5, 1, 1, 20, 10);
  Append(&expected, Box(12.5, 2.5, 1, 1, 20, 10));
  ExpectTensorNear(RunPriorBox({1, 1, 1, 2}, {1, 3, 10, 20}, attrs).boxes,
                   MakeTensor<float>({1, 2, 1, 4}, expected));
}

TEST(PriorBoxOp, SeveralMinMaxSizes) {
  // Per min size: ratios 1 and 2, then the max square.
  auto out = RunPriorBox({1, 1, 1, 1}, {1, 3, 32, 32},
                         {{"min_sizes", std::vector<float>{2, 4}},
                          {"max_sizes", std::vector<float>{8, 9}},
                          {"aspect_ratios", std::vector<float>{2}},
                          {"variances", kVariances},
                          {"flip", false},
                          {"clip", false}});
  const double r2 = std::sqrt(2.0);
  std::vector<float> expected;
  for (const auto& b :
       {Box(16, 16, 1, 1, 32, 32), Box(16, 16, r2, 1 / r2, 32, 32),
        Box(16, 16, 2, 2, 32, 32),  // sqrt(2 * 8) / 2
        Box(16, 16, 2, 2, 32, 32), Box(16, 16, 2 * r2, 2 / r2, 32, 32),
        Box(16, 16, 3, 3, 32, 32)}) {  // sqrt(4 * 9) / 2
    Append(&expected, b);
  }
  ExpectTensorNear(out.boxes, MakeTensor<float>({1, 1, 6, 4}, expected));
  EXPECT_EQ(out.variances.dims(), (framework::DDim{1, 1, 6, 4}));
}

TEST(PriorBoxOp, DuplicateRatiosAndDefaults) {
  // [1, 2, 2 + 1e-7, 0.5] with the default flip expands to [1, 2, 0.5];
  // clip (default on) keeps every value in [0, 1]; default offset 0.5.
  auto out = RunPriorBox(
      {1, 1, 1, 1}, {1, 3, 4, 4},
      {{"min_sizes", std::vector<float>{4}},
       {"aspect_ratios", std::vector<float>{1, 2, 2.0000001f, 0.5f}},
       {"variances", kVariances}});
  const double r2 = std::sqrt(2.0);
  std::vector<float> expected;
  for (const auto& b : {Box(2, 2, 2, 2, 4, 4), Box(2, 2, 2 * r2, 2 / r2, 4, 4),
                        Box(2, 2, 2 / r2, 2 * r2, 4, 4)}) {
    Append(&expected, b);
  }
  for (auto& v : expected) v = std::min(std::max(v, 0.f), 1.f);
  ExpectTensorNear(out.boxes, MakeTensor<float>({1, 1, 3, 4}, expected));
}

// Naive reference written from the spec, in double.
std::vector<double> ReferencePriors(int64_t fh,
                                    int64_t fw,
                                    double ih,
                                    double iw,
                                    const std::vector<float>& mins,
                                    const std::vector<float>& maxs,
                                    const std::vector<double>& ratios,
                                    bool clip,
                                    bool min_max_order,
                                    double offset) {
  std::vector<double> out;
  const double sw = iw / fw, sh = ih / fh;
  for (int64_t h = 0; h < fh; ++h) {
    for (int64_t w = 0; w < fw; ++w) {
      const double cx = (w + offset) * sw, cy = (h + offset) * sh;
      auto emit = [&](double bw, double bh) {
        for (double v : {(cx - bw / 2) / iw, (cy - bh / 2) / ih,
                         (cx + bw / 2) / iw, (cy + bh / 2) / ih}) {
          out.push_back(clip ? std::min(std::max(v, 0.0), 1.0) : v);
        }
      };
      for (size_t s = 0; s < mins.size(); ++s) {
        const double m = mins[s];
        if (min_max_order) {
          emit(m, m);
          if (!maxs.empty())
            emit(std::sqrt(m * maxs[s]), std::sqrt(m * maxs[s]));
          for (double ar : ratios) {
            if (ar != 1.0) emit(m * std::sqrt(ar), m / std::sqrt(ar));
          }
        } else {
          for (double ar : ratios) emit(m * std::sqrt(ar), m / std::sqrt(ar));
          if (!maxs.empty())
            emit(std::sqrt(m * maxs[s]), std::sqrt(m * maxs[s]));
        }
      }
    }
  }
  return out;
}

template <typename T>
void CheckAgainstReference(bool clip, bool min_max_order) {
  const std::vector<float> mins = {7, 19};
  const std::vector<float> maxs = {13, 31};
  // Ratios [2, 3] flipped: [1, 2, 0.5, 3, 1/3].
  const std::vector<double> ratios = {1, 2, 0.5, 3, 1 / 3.0};
  auto out = RunPriorBox<T>({1, 4, 13, 7}, {2, 3, 127, 61},
                            {{"min_sizes", mins},
                             {"max_sizes", maxs},
                             {"aspect_ratios", std::vector<float>{2, 3}},
                             {"variances", kVariances},
                             {"flip", true},
                             {"clip", clip},
                             {"offset", 0.3f},
                             {"min_max_aspect_ratios_order", min_max_order}});
  auto ref = ReferencePriors(13, 7, 127, 61, mins, maxs, ratios, clip,
                             min_max_order, 0.3);
  ExpectTensorNear(
      out.boxes,
      MakeTensor<T>({13, 7, 12, 4}, std::vector<T>(ref.begin(), ref.end())),
      1e-5, 1e-5);
  std::vector<T> var;
  for (int i = 0; i < 13 * 7 * 12; ++i) {
    for (float v : kVariances) var.push_back(static_cast<T>(v));
  }
  ExpectTensorNear(out.variances, MakeTensor<T>({13, 7, 12, 4}, var));
}

TEST(PriorBoxOp, MatchesReference) {
  CheckAgainstReference<float>(false, false);
  CheckAgainstReference<float>(true, true);
  CheckAgainstReference<double>(true, false);
  CheckAgainstReference<double>(false, true);
}

TEST(PriorBoxOp, BlazeFaceConfig) {
  // The attributes of the BlazeFace model: two min sizes, ratio 1, no
  // flip or clip, step 8, on a 16x20 grid of a 128x160 image.
  auto out = RunPriorBox({1, 96, 16, 20}, {1, 3, 128, 160},
                         {{"min_sizes", std::vector<float>{16, 24}},
                          {"max_sizes", std::vector<float>{}},
                          {"aspect_ratios", std::vector<float>{1}},
                          {"variances", kVariances},
                          {"flip", false},
                          {"clip", false},
                          {"step_w", 8.0f},
                          {"step_h", 8.0f},
                          {"offset", 0.5f}});
  ASSERT_EQ(out.boxes.dims(), (framework::DDim{16, 20, 2, 4}));
  const auto b = ToVector<float>(out.boxes);
  // Last cell (15, 19): centre (156, 124); second prior of size 24.
  const size_t last = ((15 * 20 + 19) * 2 + 1) * 4;
  EXPECT_FLOAT_EQ(b[last + 0], 144 / 160.f);
  EXPECT_FLOAT_EQ(b[last + 1], 112 / 128.f);
  EXPECT_FLOAT_EQ(b[last + 2], 168 / 160.f);  // not clipped
  EXPECT_FLOAT_EQ(b[last + 3], 136 / 128.f);
}

TEST(PriorBoxOp, EmptyFeatureMap) {
  auto out = RunPriorBox({1, 4, 0, 3}, {1, 3, 8, 8},
                         {{"min_sizes", std::vector<float>{2}},
                          {"aspect_ratios", std::vector<float>{1}},
                          {"variances", kVariances}});
  EXPECT_EQ(out.boxes.dims(), (framework::DDim{0, 3, 1, 4}));
  EXPECT_EQ(out.variances.dims(), (framework::DDim{0, 3, 1, 4}));
}

TEST(PriorBoxOp, Errors) {
  const Attrs good = {{"min_sizes", std::vector<float>{2}},
                      {"aspect_ratios", std::vector<float>{1}},
                      {"variances", kVariances}};
  ExpectError(
      [&] {
        RunPriorBox({1, 4, 3}, {1, 3, 8, 8}, good);
      },
      ErrorCode::kInvalidArgument, {"prior_box", "Input", "[1, 4, 3]"});
  ExpectError(
      [&] {
        RunPriorBox({1, 4, 3, 3}, {3, 8, 8}, good);
      },
      ErrorCode::kInvalidArgument, {"prior_box", "Image", "[3, 8, 8]"});
  Attrs bad_max = good;
  bad_max.push_back({"max_sizes", std::vector<float>{4, 5}});
  ExpectError(
      [&] {
        RunPriorBox({1, 4, 3, 3}, {1, 3, 8, 8}, bad_max);
      },
      ErrorCode::kInvalidArgument, {"prior_box", "max_sizes"});
  Attrs bad_var = good;
  bad_var[2].second = std::vector<float>{0.1f, 0.1f, 0.2f};
  ExpectError(
      [&] {
        RunPriorBox({1, 4, 3, 3}, {1, 3, 8, 8}, bad_var);
      },
      ErrorCode::kInvalidArgument, {"prior_box", "variances", "3"});
  Attrs bad_min = good;
  bad_min[0].second = std::vector<float>{2, 0};
  ExpectError(
      [&] {
        RunPriorBox({1, 4, 3, 3}, {1, 3, 8, 8}, bad_min);
      },
      ErrorCode::kInvalidArgument, {"prior_box", "min_sizes"});
  // min_sizes is required.
  ExpectError(
      [&] {
        RunPriorBox({1, 4, 3, 3}, {1, 3, 8, 8},
                    {{"aspect_ratios", std::vector<float>{1}},
                     {"variances", kVariances}});
      },
      ErrorCode::kInvalidArgument, {"prior_box", "min_sizes"});
}

TEST(PriorBoxOp, AllKernelsAgree) {
  OpTester t("prior_box");
  t.Input("Input", RandomTensor<float>({1, 4, 64, 47}))
      .Input("Image", RandomTensor<float>({1, 3, 127, 61}))
      .Output("Boxes")
      .Output("Variances")
      .Attr("min_sizes", std::vector<float>{7, 19})
      .Attr("max_sizes", std::vector<float>{13, 31})
      .Attr("aspect_ratios", std::vector<float>{2, 3})
      .Attr("variances", kVariances);
  t.RunAllKernels();
  ExpectThreadsAgree(&t, {"Boxes", "Variances"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
