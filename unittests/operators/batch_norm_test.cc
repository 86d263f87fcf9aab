#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DDim;
using framework::Tensor;

/// Y = Scale * (X - Mean) / sqrt(Variance + eps) + Bias with the channel on
/// `axis`, straight from the spec.
template <typename T>
std::vector<T> NaiveBatchNorm(const DDim& dims,
                              int axis,
                              const std::vector<T>& x,
                              const std::vector<T>& scale,
                              const std::vector<T>& bias,
                              const std::vector<T>& mean,
                              const std::vector<T>& var,
                              double eps) {
  int64_t inner = 1;
  for (size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
  const int64_t c = dims[axis];
  std::vector<T> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t ch = (static_cast<int64_t>(i) / inner) % c;
    y[i] = static_cast<T>(scale[ch] * (x[i] - mean[ch]) /
                              std::sqrt(double(var[ch]) + eps) +
                          bias[ch]);
  }
  return y;
}

struct BnCase {
  DDim dims;
  std::string layout = "NCHW";
  float epsilon = 1e-5f;
  bool set_epsilon = true;
};

template <typename T>
void CheckBatchNorm(const BnCase& k, int threads = 1) {
  SCOPED_TRACE(framework::DimsToString(k.dims) + " " + k.layout);
  const bool last = k.layout == "NHWC";
  const int axis = last ? static_cast<int>(k.dims.size()) - 1 : 1;
  const int64_t c = k.dims[axis];
  auto x = RandomTensor<T>(k.dims, -3, 3, 1);
  auto scale = RandomTensor<T>({c}, 0.5, 2, 2);
  auto bias = RandomTensor<T>({c}, -1, 1, 3);
  auto mean = RandomTensor<T>({c}, -1, 1, 4);
  auto var = RandomTensor<T>({c}, 0.1, 2, 5);
  auto expected = NaiveBatchNorm<T>(
      k.dims, axis, ToVector<T>(x), ToVector<T>(scale), ToVector<T>(bias),
      ToVector<T>(mean), ToVector<T>(var), k.epsilon);
  OpTester t("batch_norm");
  t.Input("X", x)
      .Input("Scale", scale)
      .Input("Bias", bias)
      .Input("Mean", mean)
      .Input("Variance", var)
      .Output("Y", framework::ToDataType<T>())
      .Attr("is_test", true)
      .Attr("data_layout", k.layout);
  if (k.set_epsilon) t.Attr("epsilon", k.epsilon);
  t.Run(framework::LibraryType::Plain(), threads);
  ExpectTensorNear(t.GetOutput("Y"), MakeTensor<T>(k.dims, expected), 1e-5,
                   1e-5);
}

TEST(BatchNormOp, HandComputed) {
  // Channel 0: (x - 1) / sqrt(4) * 2 + 1 = x; channel 1: (x - 0) / 1 + 0.
  OpTester t("batch_norm");
  t.Input("X", MakeTensor<float>({1, 2, 1, 2}, {3, 5, -1, 2}))
      .Input("Scale", MakeTensor<float>({2}, {2, 1}))
      .Input("Bias", MakeTensor<float>({2}, {1, 0}))
      .Input("Mean", MakeTensor<float>({2}, {1, 0}))
      .Input("Variance", MakeTensor<float>({2}, {4, 1}))
      .Output("Y")
      .Attr("is_test", true)
      .Attr("epsilon", 0.0f);
  t.Run();
  ExpectTensorNear(t.GetOutput("Y"),
                   MakeTensor<float>({1, 2, 1, 2}, {3, 5, -1, 2}));
}

TEST(BatchNormOp, MatchesReference) {
  std::vector<BnCase> cases = {
      {{2, 3, 5, 4}},
      {{2, 5, 4, 3}, "NHWC"},
      {{1, 13, 127, 1}},
      {{3, 7}},          // 2-D input: channel on dim 1
      {{3, 7}, "NHWC"},  // ... also for NHWC (the last dim)
      {{2, 4, 9}},
      {{2, 3, 2, 3, 4}},
      {{2, 2, 3, 3, 4}, "NHWC"},
      {{1, 3, 4, 4}, "AnyLayout"},
      {{2, 3, 4, 4}, "NCHW", 0.5f},  // a large epsilon is visible
      {{1, 1, 1, 1}},
  };
  for (const auto& k : cases) {
    CheckBatchNorm<float>(k, 1);
    CheckBatchNorm<float>(k, 3);
    CheckBatchNorm<double>(k);
  }
}

TEST(BatchNormOp, DefaultEpsilon) {
  // Variance 0: the default epsilon 1e-5 alone keeps the result finite.
  OpTester t("batch_norm");
  t.Input("X", MakeTensor<float>({1, 1, 1, 2}, {1, 2}))
      .Input("Scale", MakeTensor<float>({1}, {1}))
      .Input("Bias", MakeTensor<float>({1}, {0}))
      .Input("Mean", MakeTensor<float>({1}, {1}))
      .Input("Variance", MakeTensor<float>({1}, {0}))
      .Output("Y")
      .Attr("is_test", true);
  t.Run();
  ExpectTensorNear(t.GetOutput("Y"),
                   MakeTensor<float>({1, 1, 1, 2}, {0, 1 / std::sqrt(1e-5f)}),
                   1e-3, 1e-5);
}

TEST(BatchNormOp, RunningStatsAliasedOutputsStayUnchanged) {
  // As in saved models: MeanOut/VarianceOut are the Mean/Variance
  // variables; inference must not update them.
  OpTester t("batch_norm");
  t.Input("X", RandomTensor<float>({2, 3, 4, 4}))
      .Input("Scale", MakeTensor<float>({3}, {1, 1, 1}))
      .Input("Bias", MakeTensor<float>({3}, {0, 0, 0}))
      .Input("Mean", MakeTensor<float>({3}, {0.5f, -0.5f, 0}))
      .Input("Variance", MakeTensor<float>({3}, {1, 2, 3}))
      .Output("Y")
      .Output("SavedMean")
      .Output("SavedVariance")
      .AliasOutputToInput("MeanOut", "Mean")
      .AliasOutputToInput("VarianceOut", "Variance")
      .Attr("is_test", true)
      .Attr("momentum", 0.9f)
      .Attr("use_global_stats", false);
  t.Run();
  ExpectTensorNear(t.GetOutput("MeanOut"),
                   MakeTensor<float>({3}, {0.5f, -0.5f, 0}));
  ExpectTensorNear(t.GetOutput("VarianceOut"),
                   MakeTensor<float>({3}, {1, 2, 3}));
}

TEST(BatchNormOp, TrainingModeUsesBatchStatistics) {
  // is_test absent (false) and use_global_stats false: the batch's own
  // mean and biased variance normalize X. Channel 0 holds 1, 3 -> -1, 1;
  // channel 1 holds 2, 2 -> 0, 0 (+ bias 5).
  OpTester t("batch_norm");
  t.Input("X", MakeTensor<float>({2, 2}, {1, 2, 3, 2}))
      .Input("Scale", MakeTensor<float>({2}, {1, 1}))
      .Input("Bias", MakeTensor<float>({2}, {0, 5}))
      .Input("Mean", MakeTensor<float>({2}, {100, 100}))
      .Input("Variance", MakeTensor<float>({2}, {100, 100}))
      .Output("Y");
  t.Run();
  // The default epsilon 1e-5 shifts channel 0 by ~5e-6.
  ExpectTensorNear(t.GetOutput("Y"), MakeTensor<float>({2, 2}, {-1, 5, 1, 5}),
                   1e-4, 1e-4);
  // use_global_stats switches back to the running statistics.
  t.Attr("use_global_stats", true);
  t.Run();
  ExpectTensorNear(t.GetOutput("Y"),
                   MakeTensor<float>({2, 2}, {-9.9f, -4.8f, -9.7f, -4.8f}),
                   1e-4, 1e-4);
}

TEST(BatchNormOp, EmptyBatch) {
  OpTester t("batch_norm");
  t.Input("X", MakeTensor<float>({0, 3, 2, 2}, {}))
      .Input("Scale", RandomTensor<float>({3}))
      .Input("Bias", RandomTensor<float>({3}))
      .Input("Mean", RandomTensor<float>({3}))
      .Input("Variance", RandomTensor<float>({3}, 0.1, 1))
      .Output("Y")
      .Attr("is_test", true);
  t.Run();
  EXPECT_EQ(t.GetOutput("Y").dims(), (DDim{0, 3, 2, 2}));
}

TEST(BatchNormOp, RunAllKernels) {
  OpTester t("batch_norm");
  t.Input("X", RandomTensor<float>({2, 3, 13, 5}))
      .Input("Scale", RandomTensor<float>({3}, 0.5, 2, 2))
      .Input("Bias", RandomTensor<float>({3}, -1, 1, 3))
      .Input("Mean", RandomTensor<float>({3}, -1, 1, 4))
      .Input("Variance", RandomTensor<float>({3}, 0.1, 2, 5))
      .Output("Y")
      .Attr("is_test", true);
  t.RunAllKernels();
}

TEST(BatchNormOp, Errors) {
  auto run = [](DDim x, DDim param, std::string layout) {
    return [=] {
      OpTester t("batch_norm");
      t.Input("X", RandomTensor<float>(x))
          .Input("Scale", RandomTensor<float>(param))
          .Input("Bias", RandomTensor<float>(param))
          .Input("Mean", RandomTensor<float>(param))
          .Input("Variance", RandomTensor<float>(param, 0.1, 1))
          .Output("Y")
          .Attr("is_test", true)
          .Attr("data_layout", layout);
      t.Run();
    };
  };
  ExpectError(run({6}, {6}, "NCHW"), ErrorCode::kInvalidArgument,
              {"batch_norm", "rank", "[6]"});
  ExpectError(run({1, 2, 2, 2, 2, 2}, {2}, "NCHW"), ErrorCode::kInvalidArgument,
              {"batch_norm", "[1, 2, 2, 2, 2, 2]"});
  ExpectError(run({1, 3, 4, 5}, {5}, "NCHW"), ErrorCode::kInvalidArgument,
              {"batch_norm", "Scale", "[5]", "[1, 3, 4, 5]", "NCHW"});
  ExpectError(run({1, 3, 4, 5}, {3}, "NHWC"), ErrorCode::kInvalidArgument,
              {"batch_norm", "[3]", "[1, 3, 4, 5]", "NHWC"});
  ExpectError(run({1, 3, 4, 5}, {3}, "NWHC"), ErrorCode::kInvalidArgument,
              {"data_layout", "NWHC"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
