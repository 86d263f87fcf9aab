#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;

/// Naive layer norm over rows of [left, right] (spec §4.2).
template <typename T>
std::vector<T> NaiveLayerNorm(const std::vector<T>& x,
                              int64_t left,
                              int64_t right,
                              const std::vector<T>& scale,
                              const std::vector<T>& bias,
                              double eps,
                              std::vector<T>* mean_out = nullptr,
                              std::vector<T>* var_out = nullptr) {
  std::vector<T> y(x.size());
  for (int64_t r = 0; r < left; ++r) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < right; ++i) mean += x[r * right + i];
    mean /= right;
    for (int64_t i = 0; i < right; ++i) {
      var += (x[r * right + i] - mean) * (x[r * right + i] - mean);
    }
    var /= right;
    for (int64_t i = 0; i < right; ++i) {
      double v = (x[r * right + i] - mean) / std::sqrt(var + eps);
      if (!scale.empty()) v *= scale[i];
      if (!bias.empty()) v += bias[i];
      y[r * right + i] = static_cast<T>(v);
    }
    if (mean_out) mean_out->push_back(static_cast<T>(mean));
    if (var_out) var_out->push_back(static_cast<T>(var));
  }
  return y;
}

TEST(LayerNormOp, HandComputedDefaults) {
  // Row [1, 3]: mean 2, var 1 -> [-1, 1] / sqrt(1 + 1e-5).
  OpTester t("layer_norm");
  t.Input("X", MakeTensor<float>({2, 2}, {1, 3, 5, 5}))
      .Output("Y")
      .Output("Mean")
      .Output("Variance");
  t.Run();
  const float a = 1.f / std::sqrt(1.f + 1e-5f);
  ExpectTensorNear(t.GetOutput("Y"), MakeTensor<float>({2, 2}, {-a, a, 0, 0}));
  ExpectTensorNear(t.GetOutput("Mean"), MakeTensor<float>({2}, {2, 5}));
  ExpectTensorNear(t.GetOutput("Variance"), MakeTensor<float>({2}, {1, 0}));
}

TEST(LayerNormOp, BeginNormAxisOneAndTwoWithScaleAndBias) {
  const framework::DDim dims = {2, 3, 13};
  auto x = ToVector<float>(RandomTensor<float>(dims, -3, 3, 5));
  for (int axis : {1, 2}) {
    SCOPED_TRACE(axis);
    const int64_t left = axis == 1 ? 2 : 6;
    const int64_t right = axis == 1 ? 39 : 13;
    auto scale = ToVector<float>(RandomTensor<float>({right}, 0.5, 2, 6));
    auto bias = ToVector<float>(RandomTensor<float>({right}, -1, 1, 7));
    OpTester t("layer_norm");
    t.Input("X", MakeTensor<float>(dims, x))
        .Input("Scale", MakeTensor<float>({right}, scale))
        .Input("Bias", MakeTensor<float>({right}, bias))
        .Output("Y")
        .Attr("begin_norm_axis", axis)
        .Attr("epsilon", 1e-3f);
    t.Run(framework::LibraryType::Plain(), /*threads=*/2);
    ExpectTensorNear(
        t.GetOutput("Y"),
        MakeTensor<float>(
            dims, NaiveLayerNorm<float>(x, left, right, scale, bias, 1e-3)),
        1e-5, 1e-5);
  }
}

TEST(LayerNormOp, ScaleOnlyBiasOnlyAndNeither) {
  const framework::DDim dims = {3, 127};
  auto x = ToVector<double>(RandomTensor<double>(dims, -5, 5, 8));
  auto scale = ToVector<double>(RandomTensor<double>({127}, 0.5, 2, 9));
  auto bias = ToVector<double>(RandomTensor<double>({127}, -1, 1, 10));
  for (int mask = 0; mask < 3; ++mask) {
    SCOPED_TRACE(mask);
    OpTester t("layer_norm");
    t.Input("X", MakeTensor<double>(dims, x));
    std::vector<double> s, b;
    if (mask == 1) {
      s = scale;
      t.Input("Scale", MakeTensor<double>({127}, s));
    } else if (mask == 2) {
      b = bias;
      t.Input("Bias", MakeTensor<double>({127}, b));
    }
    t.Output("Y", DataType::kFloat64);
    t.Run();
    ExpectTensorNear(
        t.GetOutput("Y"),
        MakeTensor<double>(dims, NaiveLayerNorm<double>(x, 3, 127, s, b, 1e-5)),
        1e-12, 1e-12);
  }
}

TEST(LayerNormOp, ConstantRowAndOneElementRows) {
  // Zero variance: (x - mean) = 0, so Y = Bias.
  OpTester t("layer_norm");
  t.Input("X", MakeTensor<float>({1, 3}, {4, 4, 4}))
      .Input("Bias", MakeTensor<float>({3}, {1, 2, 3}))
      .Output("Y");
  t.Run();
  ExpectTensorNear(t.GetOutput("Y"), MakeTensor<float>({1, 3}, {1, 2, 3}));

  OpTester one("layer_norm");
  one.Input("X", MakeTensor<float>({4, 1}, {1, 2, 3, 4})).Output("Y");
  one.Run();
  ExpectTensorNear(one.GetOutput("Y"), MakeTensor<float>({4, 1}, {0, 0, 0, 0}));
}

TEST(LayerNormOp, EmptyInput) {
  OpTester t("layer_norm");
  t.Input("X", MakeTensor<float>({0, 5}, {})).Output("Y");
  t.Run();
  EXPECT_EQ(t.GetOutput("Y").dims(), (framework::DDim{0, 5}));
}

TEST(LayerNormOp, RunAllKernels) {
  OpTester t("layer_norm");
  t.Input("X", RandomTensor<float>({4, 2, 7}))
      .Input("Scale", RandomTensor<float>({14}, 0.5, 1.5, 2))
      .Input("Bias", RandomTensor<float>({14}, -1, 1, 3))
      .Output("Y");
  t.RunAllKernels();
}

TEST(LayerNormOp, Errors) {
  {
    OpTester t("layer_norm");
    t.Input("X", RandomTensor<float>({2, 3}))
        .Output("Y")
        .Attr("begin_norm_axis", 2);
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"layer_norm", "begin_norm_axis 2", "[2, 3]"});
  }
  {
    OpTester t("layer_norm");
    t.Input("X", RandomTensor<float>({2, 3, 4}))
        .Input("Scale", RandomTensor<float>({4}))
        .Output("Y");
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"layer_norm", "Scale", "[4]", "12"});
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
