// Real models on inputs other than the shipped ones: other batch sizes and
// image sizes. There is no reference output for these, so the checks are
// the ones that must hold anyway: output shapes, finite values, softmax
// rows summing to 1, and a batch giving the same rows as its samples run
// one at a time.
#include <sys/stat.h>

#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "paddle_lite/paddle_lite.h"

namespace paddle_lite {
namespace {

struct Case {
  std::string model;        // folder under PDLITE_MODELS_DIR
  std::vector<int64_t> item;  // shape of one sample (no batch dim)
  int64_t classes;          // output columns
  bool softmax;             // rows sum to 1
};

bool HaveModel(const std::string& dir) {
  struct stat st;
  return stat(dir.c_str(), &st) == 0;
}

std::vector<float> Pseudo(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(seed >> 8) / 16777216.0f * 2.0f - 1.0f;
  }
  return v;
}

std::vector<float> RunModel(Predictor* p, const std::vector<int64_t>& shape,
                       const float* data, std::vector<int64_t>* out_shape) {
  auto in = p->GetInputHandle(p->GetInputNames()[0]);
  in->Reshape(shape);
  in->CopyFromCpu(data);
  p->Run();
  auto out = p->GetOutputHandle(p->GetOutputNames()[0]);
  *out_shape = out->shape();
  int64_t n = 1;
  for (auto d : *out_shape) n *= d;
  std::vector<float> result(n);
  out->CopyToCpu(result.data());
  return result;
}

class ModelSanity : public ::testing::TestWithParam<Case> {};

TEST_P(ModelSanity, BatchEqualsSamplesAndOutputsAreSane) {
  const Case& c = GetParam();
  std::string dir = c.model.rfind("models/", 0) == 0
                        ? std::string(PDLITE_SOURCE_DIR) + "/" + c.model
                        : std::string(PDLITE_MODELS_DIR) + "/" + c.model;
  if (!HaveModel(dir)) GTEST_SKIP() << dir << " is not there";
  Config config(dir);
  config.SetCpuThreads(2);
  auto predictor = CreatePredictor(config);
  int64_t item_size = 1;
  for (auto d : c.item) item_size *= d;

  const int64_t batch = 3;
  std::vector<int64_t> shape = {batch};
  shape.insert(shape.end(), c.item.begin(), c.item.end());
  auto input = Pseudo(static_cast<size_t>(batch * item_size), 7);
  std::vector<int64_t> out_shape;
  auto batched = RunModel(predictor.get(), shape, input.data(), &out_shape);
  ASSERT_EQ(out_shape, (std::vector<int64_t>{batch, c.classes}));
  for (int64_t b = 0; b < batch; ++b) {
    double sum = 0;
    for (int64_t k = 0; k < c.classes; ++k) {
      float v = batched[b * c.classes + k];
      ASSERT_TRUE(std::isfinite(v)) << "row " << b << " col " << k;
      sum += v;
    }
    if (c.softmax) {
      EXPECT_NEAR(sum, 1.0, 1e-4) << "row " << b;
    }
  }
  // Each sample alone gives its row of the batch (the shapes alternate
  // between runs, so shape re-inference is exercised too).
  std::vector<int64_t> one = {1};
  one.insert(one.end(), c.item.begin(), c.item.end());
  for (int64_t b = 0; b < batch; ++b) {
    auto single = RunModel(predictor.get(), one, input.data() + b * item_size,
                      &out_shape);
    ASSERT_EQ(out_shape, (std::vector<int64_t>{1, c.classes}));
    for (int64_t k = 0; k < c.classes; ++k) {
      EXPECT_NEAR(single[k], batched[b * c.classes + k], 1e-5)
          << "sample " << b << " class " << k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Models, ModelSanity,
    ::testing::Values(
        Case{"mnist_mlp_fluid", {1, 28, 28}, 10, true},
        Case{"mlp_fluid_2018", {1, 28, 28}, 10, true},
        Case{"dqn_conv_fluid", {4, 84, 84}, 6, false},
        Case{"gesture_gesiannet_fluid16", {1, 112, 112}, 2, true},
        // The classifiers pool globally, so other image sizes work too.
        Case{"ppocr_cls_mobile_v2", {3, 48, 192}, 2, true},
        Case{"ppocr_cls_mobile_v2", {3, 48, 320}, 2, true},
        Case{"ppocr_cls_mobile_v2", {3, 32, 100}, 2, true},
        Case{"clas_mbv3_small_x0_35_3cls", {3, 224, 224}, 3, true},
        Case{"clas_mbv3_small_x0_35_3cls", {3, 160, 256}, 3, true},
        Case{"models/demo_convnet", {3, 32, 32}, 10, true},
        Case{"models/demo_convnet", {3, 64, 48}, 10, true}));

// tiny_conv_bn_relu keeps the spatial dims: [N, 32, H/2, W/2] at any size.
TEST(ModelShapes, TinyConvBnReluFollowsTheImageSize) {
  std::string dir = std::string(PDLITE_MODELS_DIR) + "/tiny_conv_bn_relu";
  if (!HaveModel(dir)) GTEST_SKIP() << dir << " is not there";
  auto predictor = CreatePredictor(Config(dir));
  for (auto hw : std::vector<std::pair<int64_t, int64_t>>{
           {224, 224}, {64, 96}, {33, 17}, {2, 2}}) {
    std::vector<int64_t> shape = {2, 3, hw.first, hw.second};
    auto input = Pseudo(2 * 3 * hw.first * hw.second, 3);
    std::vector<int64_t> out_shape;
    auto out = RunModel(predictor.get(), shape, input.data(), &out_shape);
    EXPECT_EQ(out_shape, (std::vector<int64_t>{2, 32, (hw.first + 1) / 2,
                                               (hw.second + 1) / 2}));
    for (float v : out) {
      ASSERT_TRUE(std::isfinite(v));
      ASSERT_GE(v, 0.0f);  // ends in relu
    }
  }
}

}  // namespace
}  // namespace paddle_lite
