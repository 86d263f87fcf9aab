#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "framework/npy.h"
#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;
using framework::LoD;
using framework::Tensor;
using Attrs = std::vector<std::pair<std::string, framework::Attribute>>;

struct NmsOutputs {
  Tensor out;
  Tensor index;
  Tensor rois_num;
};

struct NmsOptions {
  bool with_index = true;
  bool with_rois_num_out = true;
  const Tensor* rois_num = nullptr;
};

NmsOutputs RunNms(const Tensor& bboxes,
                  const Tensor& scores,
                  const Attrs& attrs,
                  const NmsOptions& options = {}) {
  OpTester t("multiclass_nms3");
  t.Input("BBoxes", bboxes).Input("Scores", scores);
  if (options.rois_num != nullptr) t.Input("RoisNum", *options.rois_num);
  t.Output("Out", bboxes.dtype());
  if (options.with_index) t.Output("Index", DataType::kInt32);
  if (options.with_rois_num_out) t.Output("NmsRoisNum", DataType::kInt32);
  for (const auto& kv : attrs) t.Attr(kv.first, kv.second);
  t.Run();
  NmsOutputs result;
  result.out = t.GetOutput("Out");
  if (options.with_index) result.index = t.GetOutput("Index");
  if (options.with_rois_num_out) result.rois_num = t.GetOutput("NmsRoisNum");
  return result;
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

// The required attributes, then anything in `more` (later entries win).
Attrs NmsAttrs(float score_threshold,
               int nms_top_k,
               int keep_top_k,
               const Attrs& more = {}) {
  Attrs attrs = {{"score_threshold", score_threshold},
                 {"nms_top_k", nms_top_k},
                 {"keep_top_k", keep_top_k},
                 {"nms_threshold", 0.5f}};
  attrs.insert(attrs.end(), more.begin(), more.end());
  return attrs;
}

// Expected results: rows of (label, score, box) with their Index, and the
// rows per image.
struct Expected {
  std::vector<std::vector<float>> rows;
  std::vector<int32_t> index;
  std::vector<int32_t> per_image;
};

void ExpectNms(const NmsOutputs& got, const Expected& e) {
  std::vector<size_t> offsets = {0};
  for (int32_t n : e.per_image) offsets.push_back(offsets.back() + n);
  const LoD lod = {offsets};
  std::vector<float> flat;
  for (const auto& r : e.rows) flat.insert(flat.end(), r.begin(), r.end());
  const int64_t k = static_cast<int64_t>(e.rows.size());
  ExpectTensorNear(got.out, MakeTensor<float>({k, 6}, flat, lod));
  ExpectTensorNear(got.index, MakeTensor<int32_t>({k, 1}, e.index, lod), 0, 0);
  ExpectTensorNear(got.rois_num,
                   MakeTensor<int32_t>(
                       {static_cast<int64_t>(e.per_image.size())}, e.per_image),
                   0, 0);
}

std::vector<float> Row(float label, float score, const std::vector<float>& b) {
  return {label, score, b[0], b[1], b[2], b[3]};
}

const std::vector<float> kB0 = {0, 0, 10, 10};
const std::vector<float> kB1 = {1, 1, 11, 11};    // IoU with B0: 81/119
const std::vector<float> kB2 = {20, 20, 30, 30};  // far from the others
const std::vector<float> kB3 = {0, 0, 10, 5};     // IoU with B0: exactly 0.5

Tensor FourBoxes() {
  std::vector<float> v;
  for (const auto& b : {kB0, kB1, kB2, kB3})
    v.insert(v.end(), b.begin(), b.end());
  return MakeTensor<float>({1, 4, 4}, v);
}

TEST(MulticlassNms3Op, OverlapSuppressedWithinClass) {
  // Class 0 is the background. Class 1: B1 overlaps B0 too much; B3 has
  // IoU exactly 0.5 with B0 and survives (suppression needs IoU > 0.5).
  auto got = RunNms(FourBoxes(),
                    MakeTensor<float>({1, 2, 4}, {0.99f, 0.99f, 0.99f, 0.99f,
                                                  0.9f, 0.8f, 0.7f, 0.1f}),
                    NmsAttrs(0.05f, -1, -1));
  ExpectNms(got, {{Row(1, 0.9f, kB0), Row(1, 0.7f, kB2), Row(1, 0.1f, kB3)},
                  {0, 2, 3},
                  {3}});
}

TEST(MulticlassNms3Op, DifferentClassesKeptAndOrderedByLabel) {
  // B0 and B1 overlap but belong to different classes; rows come by label,
  // not by score.
  auto got = RunNms(FourBoxes(),
                    MakeTensor<float>({1, 3, 4}, {0, 0, 0, 0,     //
                                                  0, 0.6f, 0, 0,  //
                                                  0.95f, 0, 0, 0}),
                    NmsAttrs(0.05f, -1, -1));
  ExpectNms(got, {{Row(1, 0.6f, kB1), Row(2, 0.95f, kB0)}, {1, 0}, {2}});
}

TEST(MulticlassNms3Op, BackgroundLabel) {
  const Tensor scores = MakeTensor<float>({1, 3, 4}, {0.3f, 0, 0, 0,  //
                                                      0, 0.6f, 0, 0,  //
                                                      0, 0, 0.5f, 0});
  // Default background_label 0 drops class 0.
  ExpectNms(RunNms(FourBoxes(), scores, NmsAttrs(0.05f, -1, -1)),
            {{Row(1, 0.6f, kB1), Row(2, 0.5f, kB2)}, {1, 2}, {2}});
  // -1: no background class.
  ExpectNms(RunNms(FourBoxes(), scores,
                   NmsAttrs(0.05f, -1, -1, {{"background_label", -1}})),
            {{Row(0, 0.3f, kB0), Row(1, 0.6f, kB1), Row(2, 0.5f, kB2)},
             {0, 1, 2},
             {3}});
  // 2: class 0 is a real class now, class 2 is skipped.
  ExpectNms(RunNms(FourBoxes(), scores,
                   NmsAttrs(0.05f, -1, -1, {{"background_label", 2}})),
            {{Row(0, 0.3f, kB0), Row(1, 0.6f, kB1)}, {0, 1}, {2}});
}

TEST(MulticlassNms3Op, NmsTopKTruncatesBeforeNms) {
  // Only the 2 best candidates (B0, B1) enter NMS; B1 is suppressed and
  // B2 is not reconsidered.
  const Tensor scores =
      MakeTensor<float>({1, 2, 4}, {0, 0, 0, 0, 0.9f, 0.8f, 0.7f, 0.1f});
  ExpectNms(RunNms(FourBoxes(), scores, NmsAttrs(0.05f, 2, -1)),
            {{Row(1, 0.9f, kB0)}, {0}, {1}});
  ExpectNms(RunNms(FourBoxes(), scores, NmsAttrs(0.05f, 3, -1)),
            {{Row(1, 0.9f, kB0), Row(1, 0.7f, kB2)}, {0, 2}, {2}});
}

TEST(MulticlassNms3Op, KeepTopKAcrossClasses) {
  // Detections: class 1 B0 0.9, B2 0.3; class 2 B2 0.5, B3 0.4.
  const Tensor scores = MakeTensor<float>({1, 3, 4}, {0, 0, 0, 0,        //
                                                      0.9f, 0, 0.3f, 0,  //
                                                      0, 0, 0.5f, 0.4f});
  ExpectNms(RunNms(FourBoxes(), scores, NmsAttrs(0.05f, -1, 2)),
            {{Row(1, 0.9f, kB0), Row(2, 0.5f, kB2)}, {0, 2}, {2}});
  ExpectNms(RunNms(FourBoxes(), scores, NmsAttrs(0.05f, -1, 3)),
            {{Row(1, 0.9f, kB0), Row(2, 0.5f, kB2), Row(2, 0.4f, kB3)},
             {0, 2, 3},
             {3}});
  // A cap above the count changes nothing.
  ExpectNms(RunNms(FourBoxes(), scores, NmsAttrs(0.05f, -1, 10)),
            {{Row(1, 0.9f, kB0), Row(1, 0.3f, kB2), Row(2, 0.5f, kB2),
              Row(2, 0.4f, kB3)},
             {0, 2, 2, 3},
             {4}});
}

TEST(MulticlassNms3Op, ScoreThresholdIsStrictAndEmptiesResult) {
  const Tensor scores = MakeTensor<float>(
      {1, 2, 4}, {0.9f, 0.9f, 0.9f, 0.9f, 0.5f, 0.2f, 0.5f, 0.1f});
  // Nothing scores above 0.5 outside the background: [0, 6] and [0, 1].
  auto got = RunNms(FourBoxes(), scores, NmsAttrs(0.5f, -1, -1));
  ExpectNms(got, {{}, {}, {0}});
  EXPECT_EQ(got.out.dims(), (framework::DDim{0, 6}));
  EXPECT_EQ(got.index.dims(), (framework::DDim{0, 1}));
  // Just under 0.5, both 0.5 boxes pass.
  ExpectNms(RunNms(FourBoxes(), scores, NmsAttrs(0.49f, -1, -1)),
            {{Row(1, 0.5f, kB0), Row(1, 0.5f, kB2)}, {0, 2}, {2}});
}

TEST(MulticlassNms3Op, EmptyResultWithoutIndexIsMinusOne) {
  NmsOptions options;
  options.with_index = false;
  auto got = RunNms(FourBoxes(),
                    MakeTensor<float>({1, 2, 4}, std::vector<float>(8, 0.1f)),
                    NmsAttrs(0.5f, -1, -1), options);
  ExpectTensorNear(got.out, MakeTensor<float>({1, 1}, {-1}, {{0, 1}}));
  ExpectTensorNear(got.rois_num, MakeTensor<int32_t>({1}, {0}));
}

TEST(MulticlassNms3Op, NoBoxes) {
  // M = 0.
  ExpectNms(RunNms(MakeTensor<float>({1, 0, 4}, {}),
                   MakeTensor<float>({1, 3, 0}, {}), NmsAttrs(0.f, -1, -1)),
            {{}, {}, {0}});
  // N = 0: no images at all.
  ExpectNms(RunNms(MakeTensor<float>({0, 5, 4}, {}),
                   MakeTensor<float>({0, 3, 5}, {}), NmsAttrs(0.f, -1, -1)),
            {{}, {}, {}});
  // A hostile 2^40 classes of no box: nothing found, without a task and a
  // list per class (that was 24 TB).
  ExpectNms(RunNms(MakeTensor<float>({1, 0, 4}, {}),
                   MakeTensor<float>({1, int64_t{1} << 40, 0}, {}),
                   NmsAttrs(0.f, -1, -1)),
            {{}, {}, {0}});
  NmsOptions old_style;
  old_style.with_index = false;
  auto got = RunNms(MakeTensor<float>({1, 0, 4}, {}),
                    MakeTensor<float>({1, int64_t{1} << 40, 0}, {}),
                    NmsAttrs(0.f, -1, -1), old_style);
  ExpectTensorNear(got.out, MakeTensor<float>({1, 1}, {-1}, {{0, 1}}));
  ExpectTensorNear(got.rois_num, MakeTensor<int32_t>({1}, {0}));
}

TEST(MulticlassNms3Op, SingleBox) {
  ExpectNms(RunNms(MakeTensor<float>({1, 1, 4}, {0.1f, 0.2f, 0.3f, 0.4f}),
                   MakeTensor<float>({1, 2, 1}, {0.2f, 0.7f}),
                   NmsAttrs(0.05f, -1, -1)),
            {{Row(1, 0.7f, {0.1f, 0.2f, 0.3f, 0.4f})}, {0}, {1}});
}

TEST(MulticlassNms3Op, BatchOfTwo) {
  std::vector<float> boxes;
  for (const auto& b : {kB0, kB1, kB2, kB3, kB2, kB3, kB0, kB1}) {
    boxes.insert(boxes.end(), b.begin(), b.end());
  }
  // Image 0 as in OverlapSuppressedWithinClass; image 1 keeps only its
  // box 2 (= B0) in class 1. Index counts boxes over both images.
  auto got = RunNms(MakeTensor<float>({2, 4, 4}, boxes),
                    MakeTensor<float>({2, 2, 4}, {0, 0, 0, 0,              //
                                                  0.9f, 0.8f, 0.7f, 0.1f,  //
                                                  0.9f, 0.9f, 0.9f, 0.9f,  //
                                                  0, 0.01f, 0.6f, 0.02f}),
                    NmsAttrs(0.05f, -1, -1));
  ExpectNms(got, {{Row(1, 0.9f, kB0), Row(1, 0.7f, kB2), Row(1, 0.1f, kB3),
                   Row(1, 0.6f, kB0)},
                  {0, 2, 3, 6},
                  {3, 1}});
  // An image without detections between two with some.
  auto got3 =
      RunNms(MakeTensor<float>({3, 1, 4}, {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1}),
             MakeTensor<float>({3, 2, 1}, {0, 0.9f, 0, 0.01f, 0, 0.8f}),
             NmsAttrs(0.05f, -1, -1));
  ExpectNms(got3, {{Row(1, 0.9f, {0, 0, 1, 1}), Row(1, 0.8f, {0, 0, 1, 1})},
                   {0, 2},
                   {1, 0, 1}});
}

TEST(MulticlassNms3Op, NormalizedFalseCountsEndPixels) {
  // Boxes touching at x = 1: no overlap in normalized coordinates, but as
  // pixel boxes they share a 1x2 column: IoU = 2 / (4 + 4 - 2) = 1/3.
  const Tensor boxes = MakeTensor<float>({1, 2, 4}, {0, 0, 1, 1, 1, 0, 2, 1});
  const Tensor scores = MakeTensor<float>({1, 2, 2}, {0, 0, 0.9f, 0.8f});
  const Attrs common = {{"nms_threshold", 0.3f}};
  ExpectNms(
      RunNms(boxes, scores, NmsAttrs(0.05f, -1, -1, common)),
      {{Row(1, 0.9f, {0, 0, 1, 1}), Row(1, 0.8f, {1, 0, 2, 1})}, {0, 1}, {2}});
  Attrs pixel = common;
  pixel.push_back({"normalized", false});
  ExpectNms(RunNms(boxes, scores, NmsAttrs(0.05f, -1, -1, pixel)),
            {{Row(1, 0.9f, {0, 0, 1, 1})}, {0}, {1}});
  // Just above 1/3 the pixel boxes both survive.
  pixel.push_back({"nms_threshold", 0.34f});
  ExpectNms(
      RunNms(boxes, scores, NmsAttrs(0.05f, -1, -1, pixel)),
      {{Row(1, 0.9f, {0, 0, 1, 1}), Row(1, 0.8f, {1, 0, 2, 1})}, {0, 1}, {2}});
}

TEST(MulticlassNms3Op, NmsEtaShrinksThreshold) {
  // A (0.9), B (0.8, IoU(A) = 0.6), C (0.7, IoU(A) = 0.4, IoU(B) = 2/3).
  const std::vector<float> a = {0, 0, 10, 10}, b = {0, 0, 10, 6},
                           c = {0, 0, 10, 4};
  const Tensor boxes =
      MakeTensor<float>({1, 3, 4}, {0, 0, 10, 10, 0, 0, 10, 6, 0, 0, 10, 4});
  const Tensor scores =
      MakeTensor<float>({1, 2, 3}, {0, 0, 0, 0.9f, 0.8f, 0.7f});
  // eta 1: threshold stays 0.65; B kept, C suppressed by B.
  ExpectNms(RunNms(boxes, scores,
                   NmsAttrs(0.05f, -1, -1, {{"nms_threshold", 0.65f}})),
            {{Row(1, 0.9f, a), Row(1, 0.8f, b)}, {0, 1}, {2}});
  // eta 0.9: after A the threshold is 0.585, B goes, C (0.4 vs A) stays.
  ExpectNms(RunNms(boxes, scores,
                   NmsAttrs(0.05f, -1, -1,
                            {{"nms_threshold", 0.65f}, {"nms_eta", 0.9f}})),
            {{Row(1, 0.9f, a), Row(1, 0.7f, c)}, {0, 2}, {2}});
}

// 2-D form: per-class boxes [M, C, 4], scores [M, C], images by RoisNum.
// Rows 0-1 are image 0, row 2 image 1.
Tensor PerClassBoxes() {
  return MakeTensor<float>({3, 2, 4}, {0, 0, 10, 10, 0,  0,  10, 10,  //
                                       0, 0, 10, 10, 50, 50, 60, 60,  //
                                       5, 5, 6,  6,  1,  1,  2,  2});
}

Tensor PerClassScores() {
  return MakeTensor<float>({3, 2}, {0.3f, 0.6f, 0.8f, 0.9f, 0.4f, 0.01f});
}

// Image 0: class 0 keeps row 1 (row 0 is the same box, lower score);
// class 1 keeps rows 0 and 1, listed by row, not by score. Image 1: class
// 0 row 2. Index = row * C + class.
const Expected kPerClassExpected = {
    {Row(0, 0.8f, {0, 0, 10, 10}), Row(1, 0.6f, {0, 0, 10, 10}),
     Row(1, 0.9f, {50, 50, 60, 60}), Row(0, 0.4f, {5, 5, 6, 6})},
    {2, 1, 3, 4},
    {3, 1}};

TEST(MulticlassNms3Op, RoisNumForm) {
  const Attrs attrs = NmsAttrs(0.05f, -1, -1, {{"background_label", -1}});
  const Tensor rois32 = MakeTensor<int32_t>({2}, {2, 1});
  NmsOptions options;
  options.rois_num = &rois32;
  ExpectNms(RunNms(PerClassBoxes(), PerClassScores(), attrs, options),
            kPerClassExpected);
  const Tensor rois64 = MakeTensor<int64_t>({2}, {2, 1});
  options.rois_num = &rois64;
  ExpectNms(RunNms(PerClassBoxes(), PerClassScores(), attrs, options),
            kPerClassExpected);
  // Without RoisNum the LoD of BBoxes splits the images.
  Tensor with_lod = PerClassBoxes();
  with_lod.set_lod({{0, 2, 3}});
  ExpectNms(RunNms(with_lod, PerClassScores(), attrs), kPerClassExpected);
  // An image with no boxes.
  const Tensor rois_empty = MakeTensor<int32_t>({3}, {2, 0, 1});
  options.rois_num = &rois_empty;
  Expected e = kPerClassExpected;
  e.per_image = {3, 0, 1};
  ExpectNms(RunNms(PerClassBoxes(), PerClassScores(), attrs, options), e);
  // keep_top_k 2 of image 0 (0.9 and 0.8), again listed by row per class.
  options.rois_num = &rois32;
  e = {{Row(0, 0.8f, {0, 0, 10, 10}), Row(1, 0.9f, {50, 50, 60, 60}),
        Row(0, 0.4f, {5, 5, 6, 6})},
       {2, 3, 4},
       {2, 1}};
  ExpectNms(RunNms(PerClassBoxes(), PerClassScores(),
                   NmsAttrs(0.05f, -1, 2, {{"background_label", -1}}), options),
            e);
}

// Naive reference written from the spec (3-D form), in double.
Expected ReferenceNms(const std::vector<double>& boxes,
                      const std::vector<double>& scores,
                      int64_t n,
                      int64_t c,
                      int64_t m,
                      double score_threshold,
                      int nms_top_k,
                      int keep_top_k,
                      double nms_threshold,
                      double eta,
                      int background,
                      bool normalized) {
  auto area = [&](const double* b) {
    if (b[2] < b[0] || b[3] < b[1]) return 0.0;
    const double e = normalized ? 0 : 1;
    return (b[2] - b[0] + e) * (b[3] - b[1] + e);
  };
  auto iou = [&](const double* a, const double* b) {
    if (b[0] > a[2] || b[2] < a[0] || b[1] > a[3] || b[3] < a[1]) return 0.0;
    const double e = normalized ? 0 : 1;
    const double inter = (std::min(a[2], b[2]) - std::max(a[0], b[0]) + e) *
                         (std::min(a[3], b[3]) - std::max(a[1], b[1]) + e);
    return inter / (area(a) + area(b) - inter);
  };
  Expected result;
  for (int64_t i = 0; i < n; ++i) {
    struct Det {
      double score;
      int64_t cls, box;
    };
    std::vector<Det> dets;  // by class, then descending score
    for (int64_t k = 0; k < c; ++k) {
      if (k == background) continue;
      std::vector<Det> cand;
      for (int64_t j = 0; j < m; ++j) {
        const double s = scores[(i * c + k) * m + j];
        if (s > score_threshold) cand.push_back({s, k, j});
      }
      std::stable_sort(
          cand.begin(), cand.end(),
          [](const Det& x, const Det& y) { return x.score > y.score; });
      if (nms_top_k > -1 && static_cast<int>(cand.size()) > nms_top_k) {
        cand.resize(nms_top_k);
      }
      double t = nms_threshold;
      std::vector<Det> kept;
      for (const Det& d : cand) {
        bool ok = true;
        for (const Det& q : kept) {
          ok = ok && iou(&boxes[(i * m + d.box) * 4],
                         &boxes[(i * m + q.box) * 4]) <= t;
        }
        if (!ok) continue;
        kept.push_back(d);
        if (eta < 1 && t > 0.5) t *= eta;
      }
      dets.insert(dets.end(), kept.begin(), kept.end());
    }
    if (keep_top_k > -1 && static_cast<int>(dets.size()) > keep_top_k) {
      std::stable_sort(
          dets.begin(), dets.end(),
          [](const Det& x, const Det& y) { return x.score > y.score; });
      dets.resize(keep_top_k);
      std::stable_sort(
          dets.begin(), dets.end(),
          [](const Det& x, const Det& y) { return x.cls < y.cls; });
    }
    for (const Det& d : dets) {
      const double* b = &boxes[(i * m + d.box) * 4];
      result.rows.push_back(
          {static_cast<float>(d.cls), static_cast<float>(d.score),
           static_cast<float>(b[0]), static_cast<float>(b[1]),
           static_cast<float>(b[2]), static_cast<float>(b[3])});
      result.index.push_back(static_cast<int32_t>(i * m + d.box));
    }
    result.per_image.push_back(static_cast<int32_t>(dets.size()));
  }
  return result;
}

TEST(MulticlassNms3Op, MatchesReference) {
  struct Case {
    int64_t n, c, m;
    int nms_top_k, keep_top_k, background;
    float nms_threshold, eta;
    bool normalized;
  };
  // The third case starts above 0.5 so that nms_eta shrinks it.
  const Case cases[] = {{2, 4, 127, -1, -1, 0, 0.45f, 1.0f, true},
                        {2, 4, 127, 20, 15, 0, 0.45f, 1.0f, true},
                        {3, 3, 13, -1, 5, -1, 0.7f, 0.8f, false},
                        {1, 1, 1, -1, -1, 0, 0.45f, 1.0f, true}};
  uint32_t seed = 7;
  for (const Case& k : cases) {
    SCOPED_TRACE("case m=" + std::to_string(k.m));
    // Boxes: random corners (x1 < x2, y1 < y2) in a 0..100 square.
    const std::vector<float> corner =
        ToVector<float>(RandomTensor<float>({k.n, k.m, 4}, 0, 60, seed++));
    const std::vector<float> size =
        ToVector<float>(RandomTensor<float>({k.n, k.m, 2}, 5, 40, seed++));
    std::vector<float> boxes(corner.size());
    for (int64_t b = 0; b < k.n * k.m; ++b) {
      boxes[b * 4 + 0] = corner[b * 4 + 0];
      boxes[b * 4 + 1] = corner[b * 4 + 1];
      boxes[b * 4 + 2] = corner[b * 4 + 0] + size[b * 2 + 0];
      boxes[b * 4 + 3] = corner[b * 4 + 1] + size[b * 2 + 1];
    }
    const Tensor scores = RandomTensor<float>({k.n, k.c, k.m}, 0, 1, seed++);
    const auto sv = ToVector<float>(scores);
    const Expected ref =
        ReferenceNms(std::vector<double>(boxes.begin(), boxes.end()),
                     std::vector<double>(sv.begin(), sv.end()), k.n, k.c, k.m,
                     static_cast<double>(0.3f), k.nms_top_k, k.keep_top_k,
                     static_cast<double>(k.nms_threshold),
                     static_cast<double>(k.eta), k.background, k.normalized);
    const Attrs attrs = NmsAttrs(0.3f, k.nms_top_k, k.keep_top_k,
                                 {{"nms_threshold", k.nms_threshold},
                                  {"nms_eta", k.eta},
                                  {"background_label", k.background},
                                  {"normalized", k.normalized}});
    ExpectNms(RunNms(MakeTensor<float>({k.n, k.m, 4}, boxes), scores, attrs),
              ref);
    // The double kernel agrees on the same values.
    auto got = RunNms(
        MakeTensor<double>({k.n, k.m, 4},
                           std::vector<double>(boxes.begin(), boxes.end())),
        MakeTensor<double>({k.n, k.c, k.m},
                           std::vector<double>(sv.begin(), sv.end())),
        attrs);
    ASSERT_EQ(got.out.dtype(), DataType::kFloat64);
    EXPECT_EQ(ToVector<int32_t>(got.index), ref.index);
    EXPECT_EQ(ToVector<int32_t>(got.rois_num), ref.per_image);
  }
}

TEST(MulticlassNms3Op, Errors) {
  const Attrs attrs = NmsAttrs(0.05f, -1, -1);
  ExpectError(
      [&] {
        RunNms(RandomTensor<float>({1, 5, 4}), RandomTensor<float>({1, 2, 4}),
               attrs);
      },
      ErrorCode::kInvalidArgument,
      {"multiclass_nms3", "[1, 5, 4]", "[1, 2, 4]"});
  ExpectError(
      [&] {
        RunNms(RandomTensor<float>({1, 4, 8}), RandomTensor<float>({1, 2, 4}),
               attrs);
      },
      ErrorCode::kUnimplemented, {"multiclass_nms3", "[1, 4, 8]"});
  ExpectError(
      [&] {
        RunNms(RandomTensor<float>({4, 4}), RandomTensor<float>({1, 2, 4}),
               attrs);
      },
      ErrorCode::kInvalidArgument, {"multiclass_nms3", "BBoxes", "[4, 4]"});
  ExpectError(
      [&] {
        RunNms(RandomTensor<float>({1, 4, 4}),
               RandomTensor<float>({1, 1, 2, 4}), attrs);
      },
      ErrorCode::kInvalidArgument,
      {"multiclass_nms3", "Scores", "[1, 1, 2, 4]"});
  // 2-D form without RoisNum or LoD.
  ExpectError([&] { RunNms(PerClassBoxes(), PerClassScores(), attrs); },
              ErrorCode::kInvalidArgument,
              {"multiclass_nms3", "RoisNum", "LoD"});
  const Tensor rois = MakeTensor<int32_t>({2}, {2, 2});
  NmsOptions options;
  options.rois_num = &rois;
  ExpectError(
      [&] { RunNms(PerClassBoxes(), PerClassScores(), attrs, options); },
      ErrorCode::kInvalidArgument, {"multiclass_nms3", "4", "3 rows"});
  // Required attributes.
  ExpectError(
      [&] {
        RunNms(FourBoxes(), RandomTensor<float>({1, 2, 4}),
               {{"score_threshold", 0.1f}, {"nms_top_k", -1}});
      },
      ErrorCode::kInvalidArgument, {"multiclass_nms3", "keep_top_k"});
}

// The NMS inputs and outputs of the two detection models in
// shared/models (computed by an independent implementation).
void CheckModelNms(const std::string& model,
                   const std::string& boxes_var,
                   const std::string& scores_var,
                   const Attrs& attrs) {
  const std::string dir =
      std::string(PDLITE_SHARED_DIR) + "/models/" + model + "/ref/";
  if (!std::ifstream(dir + "expected_multiclass_nms3_0.tmp_0.npy")) {
    GTEST_SKIP() << "no reference data in " << dir;
  }
  const Tensor boxes =
      framework::ReadNpy(dir + "intermediate_" + boxes_var + ".npy");
  const Tensor scores =
      framework::ReadNpy(dir + "intermediate_" + scores_var + ".npy");
  Tensor expected_out =
      framework::ReadNpy(dir + "expected_multiclass_nms3_0.tmp_0.npy");
  const Tensor expected_num =
      framework::ReadNpy(dir + "expected_multiclass_nms3_0.tmp_2.npy");
  auto got = RunNms(boxes, scores, attrs);
  ExpectTensorNear(got.rois_num, expected_num, 0, 0);
  expected_out.set_lod({{0, static_cast<size_t>(expected_out.dims()[0])}});
  ExpectTensorNear(got.out, expected_out, 1e-4, 1e-4);
}

TEST(MulticlassNms3Op, PpyoloTinyReference) {
  CheckModelNms("det_ppyolo_tiny", "concat_3.tmp_0", "concat_4.tmp_0",
                {{"background_label", 13},
                 {"score_threshold", 0.005f},
                 {"nms_top_k", 1000},
                 {"keep_top_k", 100},
                 {"nms_threshold", 0.45f},
                 {"nms_eta", 1.0f},
                 {"normalized", true}});
}

TEST(MulticlassNms3Op, BlazeFaceReference) {
  CheckModelNms("det_blazeface", "tmp_28", "transpose_4.tmp_0",
                {{"background_label", 1},
                 {"score_threshold", 0.01f},
                 {"nms_top_k", 5000},
                 {"keep_top_k", 750},
                 {"nms_threshold", 0.3f},
                 {"nms_eta", 1.0f},
                 {"normalized", true}});
}

TEST(MulticlassNms3Op, AllKernelsAgree) {
  OpTester t("multiclass_nms3");
  t.Input("BBoxes", RandomTensor<float>({2, 1000, 4}, 0, 50))
      .Input("Scores", RandomTensor<float>({2, 5, 1000}, 0, 1))
      .Output("Out")
      .Output("Index", DataType::kInt32)
      .Output("NmsRoisNum", DataType::kInt32)
      .Attr("score_threshold", 0.2f)
      .Attr("nms_top_k", 50)
      .Attr("keep_top_k", 40);
  t.RunAllKernels();
  ExpectThreadsAgree(&t, {"Out", "Index", "NmsRoisNum"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
