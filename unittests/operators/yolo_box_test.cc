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

struct YoloOutputs {
  Tensor boxes;
  Tensor scores;
};

YoloOutputs RunYoloBox(const Tensor& x,
                       const Tensor& img_size,
                       const Attrs& attrs) {
  OpTester t("yolo_box");
  t.Input("X", x).Input("ImgSize", img_size);
  t.Output("Boxes", x.dtype()).Output("Scores", x.dtype());
  for (const auto& kv : attrs) t.Attr(kv.first, kv.second);
  t.Run();
  return {t.GetOutput("Boxes"), t.GetOutput("Scores")};
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

double Logit(double p) { return std::log(p / (1 - p)); }
double Sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

// Naive decoding written from the spec, in double: returns boxes and
// scores for X [N, A*(5+C) (+A), H, W].
template <typename T>
std::pair<std::vector<double>, std::vector<double>> ReferenceYolo(
    const Tensor& x,
    const std::vector<int32_t>& img,
    const std::vector<int>& anchors,
    int class_num,
    double conf_thresh,
    int ratio,
    bool clip,
    double scale_xy,
    bool iou_aware,
    double factor) {
  const auto& d = x.dims();
  const int64_t n = d[0], h = d[2], w = d[3];
  const int64_t a_num = static_cast<int64_t>(anchors.size() / 2);
  const std::vector<T> v = ToVector<T>(x);
  auto at = [&](int64_t i, int64_t ch, int64_t k, int64_t l) {
    return static_cast<double>(v[((i * d[1] + ch) * h + k) * w + l]);
  };
  const int64_t rows = a_num * h * w;
  std::vector<double> boxes(n * rows * 4, 0.0),
      scores(n * rows * class_num, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    const double ih = img[2 * i], iw = img[2 * i + 1];
    for (int64_t a = 0; a < a_num; ++a) {
      const int64_t base = (iou_aware ? a_num : 0) + a * (5 + class_num);
      for (int64_t k = 0; k < h; ++k) {
        for (int64_t l = 0; l < w; ++l) {
          double conf = Sigmoid(at(i, base + 4, k, l));
          if (iou_aware) {
            conf = std::pow(conf, 1 - factor) *
                   std::pow(Sigmoid(at(i, a, k, l)), factor);
          }
          if (conf < conf_thresh) continue;
          const double bias = -0.5 * (scale_xy - 1);
          const double cx =
              (l + Sigmoid(at(i, base, k, l)) * scale_xy + bias) * iw / w;
          const double cy =
              (k + Sigmoid(at(i, base + 1, k, l)) * scale_xy + bias) * ih / h;
          const double bw = std::exp(at(i, base + 2, k, l)) * anchors[2 * a] *
                            iw / (ratio * w);
          const double bh = std::exp(at(i, base + 3, k, l)) *
                            anchors[2 * a + 1] * ih / (ratio * h);
          double b[4] = {cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2};
          if (clip) {
            b[0] = std::max(b[0], 0.0);
            b[1] = std::max(b[1], 0.0);
            b[2] = std::min(b[2], iw - 1);
            b[3] = std::min(b[3], ih - 1);
          }
          const int64_t row = i * rows + a * h * w + k * w + l;
          for (int j = 0; j < 4; ++j) boxes[row * 4 + j] = b[j];
          for (int c = 0; c < class_num; ++c) {
            scores[row * class_num + c] =
                conf * Sigmoid(at(i, base + 5 + c, k, l));
          }
        }
      }
    }
  }
  return {boxes, scores};
}

// One anchor (10, 20), two classes, a 1x2 grid, image 100 high, 200 wide,
// downsample 32 (network input 32 x 64). Cell 0 is confident, cell 1 not.
// Channels: tx, ty, tw, th, obj, cls0, cls1.
Tensor OneAnchorHead(double tx, double ty, double tw, double th) {
  return MakeTensor<float>(
      {1, 7, 1, 2},
      {static_cast<float>(tx), 0.f, static_cast<float>(ty), 0.f,
       static_cast<float>(tw), 0.f, static_cast<float>(th), 0.f,
       /*obj=*/0.f, -10.f,
       /*cls0=*/0.f, 0.f, /*cls1=*/static_cast<float>(Logit(0.75)), 0.f});
}

const Attrs kOneAnchor = {{"anchors", std::vector<int>{10, 20}},
                          {"class_num", 2},
                          {"conf_thresh", 0.01f},
                          {"downsample_ratio", 32}};

TEST(YoloBoxOp, ByHandNoClip) {
  Attrs attrs = kOneAnchor;
  attrs.push_back({"clip_bbox", false});
  auto out = RunYoloBox(OneAnchorHead(0, 0, 0, 0),
                        MakeTensor<int32_t>({1, 2}, {100, 200}), attrs);
  // Cell 0: centre (0.5 * 200 / 2, 0.5 * 100 / 1) = (50, 50); size
  // (10 * 200 / 64, 20 * 100 / 32) = (31.25, 62.5). Cell 1 has
  // conf = sigmoid(-10) < 0.01: all zero.
  ExpectTensorNear(
      out.boxes, MakeTensor<float>({1, 2, 4}, {34.375f, 18.75f, 65.625f, 81.25f,
                                               0, 0, 0, 0}));
  ExpectTensorNear(out.scores,
                   MakeTensor<float>({1, 2, 2}, {0.25f, 0.375f, 0, 0}));
}

TEST(YoloBoxOp, ClipBbox) {
  // Width 20 * 31.25 = 625, height 4 * 62.5 = 250: both overflow.
  const Tensor x = OneAnchorHead(0, 0, std::log(20.0), std::log(4.0));
  const Tensor img = MakeTensor<int32_t>({1, 2}, {100, 200});
  Attrs on = kOneAnchor;
  on.push_back({"clip_bbox", true});
  ExpectTensorNear(RunYoloBox(x, img, on).boxes,
                   MakeTensor<float>({1, 2, 4}, {0, 0, 199, 99, 0, 0, 0, 0}));
  Attrs off = kOneAnchor;
  off.push_back({"clip_bbox", false});
  ExpectTensorNear(
      RunYoloBox(x, img, off).boxes,
      MakeTensor<float>({1, 2, 4}, {-262.5f, -75, 362.5f, 175, 0, 0, 0, 0}));
}

TEST(YoloBoxOp, ScaleXY) {
  // sigmoid(tx) = 0.75, scale 1.2, bias -0.1: x offset 0.8 (0.75 without
  // scaling); sigmoid(ty) = 0.25: y offset 0.2.
  Attrs attrs = kOneAnchor;
  attrs.push_back({"clip_bbox", false});
  attrs.push_back({"scale_x_y", 1.2f});
  auto out = RunYoloBox(OneAnchorHead(Logit(0.75), Logit(0.25), 0, 0),
                        MakeTensor<int32_t>({1, 2}, {100, 200}), attrs);
  const float cx = 0.8f * 100, cy = 0.2f * 100;
  ExpectTensorNear(
      out.boxes,
      MakeTensor<float>({1, 2, 4}, {cx - 15.625f, cy - 31.25f, cx + 15.625f,
                                    cy + 31.25f, 0, 0, 0, 0}),
      1e-4);
}

TEST(YoloBoxOp, ConfThreshFilters) {
  // conf = sigmoid(0) = 0.5: kept at threshold 0.5 (only conf < thresh is
  // dropped), dropped at 0.51.
  const Tensor x = OneAnchorHead(0, 0, 0, 0);
  const Tensor img = MakeTensor<int32_t>({1, 2}, {100, 200});
  Attrs keep = kOneAnchor;
  keep[2].second = 0.5f;
  EXPECT_FLOAT_EQ(ToVector<float>(RunYoloBox(x, img, keep).scores)[1], 0.375f);
  Attrs drop = kOneAnchor;
  drop[2].second = 0.51f;
  auto out = RunYoloBox(x, img, drop);
  ExpectTensorNear(out.boxes,
                   MakeTensor<float>({1, 2, 4}, std::vector<float>(8, 0)));
  ExpectTensorNear(out.scores, MakeTensor<float>({1, 2, 2}, {0, 0, 0, 0}));
}

TEST(YoloBoxOp, IouAware) {
  // Channel 0 is the IoU logit: conf = 0.5^(1-f) * 0.75^f.
  const Tensor x = MakeTensor<float>(
      {1, 8, 1, 1}, {static_cast<float>(Logit(0.75)), 0, 0, 0, 0, 0, 0,
                     static_cast<float>(Logit(0.75))});
  Attrs attrs = kOneAnchor;
  attrs.push_back({"iou_aware", true});
  attrs.push_back({"iou_aware_factor", 0.4f});
  attrs.push_back({"clip_bbox", false});
  auto out = RunYoloBox(x, MakeTensor<int32_t>({1, 2}, {32, 32}), attrs);
  const float conf =
      static_cast<float>(std::pow(0.5, 0.6) * std::pow(0.75, 0.4));
  ExpectTensorNear(out.scores,
                   MakeTensor<float>({1, 1, 2}, {conf * 0.5f, conf * 0.75f}));
  // Anchor (10, 20) on a 32x32 image of a 1x1 grid with input 32x32.
  ExpectTensorNear(out.boxes, MakeTensor<float>({1, 1, 4}, {11, 6, 21, 26}));
}

TEST(YoloBoxOp, Defaults) {
  // Defaults: conf_thresh 0.01, downsample 32, clip on, scale 1, no IoU.
  auto out =
      RunYoloBox(OneAnchorHead(0, 0, std::log(20.0), 0),
                 MakeTensor<int32_t>({1, 2}, {100, 200}),
                 {{"anchors", std::vector<int>{10, 20}}, {"class_num", 2}});
  ExpectTensorNear(
      out.boxes,
      MakeTensor<float>({1, 2, 4}, {0, 18.75f, 199, 81.25f, 0, 0, 0, 0}));
}

template <typename T>
void CheckAgainstReference(const framework::DDim& grid,
                           bool iou_aware,
                           bool clip,
                           float scale_xy,
                           uint32_t seed) {
  const std::vector<int> anchors = {10, 13, 16, 30, 33, 23};
  const int class_num = 3;
  const int64_t a_num = 3;
  const int64_t channels = a_num * ((iou_aware ? 6 : 5) + class_num);
  const int64_t n = 2;
  const Tensor x =
      RandomTensor<T>({n, channels, grid[0], grid[1]}, -3, 3, seed);
  const std::vector<int32_t> img = {413, 307, 96, 640};
  const float conf_thresh = 0.4f;
  auto out = RunYoloBox(x, MakeTensor<int32_t>({n, 2}, img),
                        {{"anchors", anchors},
                         {"class_num", class_num},
                         {"conf_thresh", conf_thresh},
                         {"downsample_ratio", 16},
                         {"clip_bbox", clip},
                         {"scale_x_y", scale_xy},
                         {"iou_aware", iou_aware},
                         {"iou_aware_factor", 0.3f}});
  auto ref = ReferenceYolo<T>(x, img, anchors, class_num, conf_thresh, 16, clip,
                              scale_xy, iou_aware, 0.3);
  const int64_t rows = a_num * grid[0] * grid[1];
  std::vector<T> boxes(ref.first.begin(), ref.first.end());
  std::vector<T> scores(ref.second.begin(), ref.second.end());
  ExpectTensorNear(out.boxes, MakeTensor<T>({n, rows, 4}, boxes), 1e-3, 1e-5);
  ExpectTensorNear(out.scores, MakeTensor<T>({n, rows, class_num}, scores),
                   1e-6, 1e-5);
  // Some cells must be filtered and some kept, or the case proves little.
  int64_t zero_rows = 0;
  for (int64_t r = 0; r < n * rows; ++r) zero_rows += scores[r * 3] == 0;
  EXPECT_GT(zero_rows, 0);
  EXPECT_LT(zero_rows, n * rows);
}

TEST(YoloBoxOp, MatchesReference) {
  CheckAgainstReference<float>({13, 7}, false, true, 1.05f, 1);
  CheckAgainstReference<float>({5, 11}, false, false, 1.0f, 2);
  CheckAgainstReference<float>({6, 6}, true, true, 1.2f, 3);
  CheckAgainstReference<double>({13, 7}, true, false, 1.1f, 4);
  CheckAgainstReference<double>({1, 1}, false, true, 1.0f, 5);
}

TEST(YoloBoxOp, EmptyGridAndBatch) {
  const Attrs attrs = {{"anchors", std::vector<int>{10, 20}}, {"class_num", 2}};
  auto out = RunYoloBox(MakeTensor<float>({1, 7, 0, 4}, {}),
                        MakeTensor<int32_t>({1, 2}, {32, 32}), attrs);
  EXPECT_EQ(out.boxes.dims(), (framework::DDim{1, 0, 4}));
  EXPECT_EQ(out.scores.dims(), (framework::DDim{1, 0, 2}));
  out = RunYoloBox(MakeTensor<float>({0, 7, 2, 2}, {}),
                   MakeTensor<int32_t>({0, 2}, {}), attrs);
  EXPECT_EQ(out.boxes.dims(), (framework::DDim{0, 4, 4}));
  EXPECT_EQ(out.scores.dims(), (framework::DDim{0, 4, 2}));
  // 2^40 rows of zero width: no cells, and no loop over the rows (2^31 of
  // them took a minute under ASan).
  const int64_t rows = int64_t{1} << 40;
  out = RunYoloBox(MakeTensor<float>({1, 7, rows, 0}, {}),
                   MakeTensor<int32_t>({1, 2}, {32, 32}), attrs);
  EXPECT_EQ(out.boxes.dims(), (framework::DDim{1, 0, 4}));
  EXPECT_EQ(out.scores.dims(), (framework::DDim{1, 0, 2}));
}

TEST(YoloBoxOp, Errors) {
  const Attrs attrs = {{"anchors", std::vector<int>{10, 20}}, {"class_num", 2}};
  const Tensor img = MakeTensor<int32_t>({1, 2}, {32, 32});
  ExpectError(
      [&] {
        RunYoloBox(RandomTensor<float>({1, 8, 2, 2}), img, attrs);
      },
      ErrorCode::kInvalidArgument, {"yolo_box", "[1, 8, 2, 2]", "7"});
  ExpectError(
      [&] {
        RunYoloBox(RandomTensor<float>({7, 2, 2}), img, attrs);
      },
      ErrorCode::kInvalidArgument, {"yolo_box", "[7, 2, 2]"});
  ExpectError(
      [&] {
        RunYoloBox(RandomTensor<float>({1, 7, 2, 2}),
                   MakeTensor<float>({1, 2}, {32, 32}), attrs);
      },
      ErrorCode::kInvalidArgument, {"yolo_box", "ImgSize", "int32"});
  ExpectError(
      [&] {
        RunYoloBox(RandomTensor<float>({2, 7, 2, 2}), img, attrs);
      },
      ErrorCode::kInvalidArgument, {"yolo_box", "ImgSize", "[1, 2]"});
  ExpectError(
      [&] {
        RunYoloBox(
            RandomTensor<float>({1, 7, 2, 2}), img,
            {{"anchors", std::vector<int>{10, 20, 30}}, {"class_num", 2}});
      },
      ErrorCode::kInvalidArgument, {"yolo_box", "anchors"});
  ExpectError(
      [&] {
        RunYoloBox(RandomTensor<float>({1, 7, 2, 2}), img,
                   {{"anchors", std::vector<int>{10, 20}},
                    {"class_num", 2},
                    {"iou_aware", true}});
      },
      ErrorCode::kInvalidArgument, {"yolo_box", "iou_aware"});
}

TEST(YoloBoxOp, AllKernelsAgree) {
  OpTester t("yolo_box");
  t.Input("X", RandomTensor<float>({2, 24, 26, 19}, -3, 3))
      .Input("ImgSize", MakeTensor<int32_t>({2, 2}, {416, 416, 320, 608}))
      .Output("Boxes")
      .Output("Scores")
      .Attr("anchors", std::vector<int>{10, 13, 16, 30, 33, 23})
      .Attr("class_num", 3)
      .Attr("conf_thresh", 0.3f)
      .Attr("scale_x_y", 1.05f);
  t.RunAllKernels();
  ExpectThreadsAgree(&t, {"Boxes", "Scores"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
