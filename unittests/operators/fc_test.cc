// fc: a naive reference loop (flatten, product, bias, relu), shapes, LoD
// and errors.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;
using framework::DDim;

// Out = act(Input[M, K] @ W[K, N] + bias), computed element by element.
std::vector<float> NaiveFc(const std::vector<float>& in,
                           const std::vector<float>& w,
                           const std::vector<float>& bias,
                           int64_t m,
                           int64_t k,
                           int64_t n,
                           bool relu) {
  std::vector<float> out(m * n);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double acc = bias.empty() ? 0.0 : bias[j];
      for (int64_t p = 0; p < k; ++p) acc += in[i * k + p] * w[p * n + j];
      out[i * n + j] = relu && acc < 0 ? 0.0f : static_cast<float>(acc);
    }
  }
  return out;
}

TEST(FcOp, HandComputed) {
  // [1, 2] @ [[1, 2], [3, 4]] + [10, -20], then relu.
  OpTester t("fc");
  t.Input("Input", MakeTensor<float>({1, 2}, {1, 2}))
      .Input("W", MakeTensor<float>({2, 2}, {1, 2, 3, 4}))
      .Input("Bias", MakeTensor<float>({2}, {10, -20}))
      .Output("Out")
      .Attr("activation_type", std::string("relu"));
  t.Run();
  // 1*1 + 2*3 + 10 = 17; 1*2 + 2*4 - 20 = -10 -> 0.
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({1, 2}, {17, 0}));
}

struct FcCase {
  const char* name;
  DDim input;
  int in_num_col_dims;
  int64_t n;
  bool bias;
  bool bias_2d;
  bool relu;
};

TEST(FcOp, MatchesNaiveLoop) {
  const FcCase cases[] = {
      {"2-D, defaults", {5, 7}, 1, 3, false, false, false},
      {"bias + relu", {13, 127}, 1, 13, true, false, true},
      {"3-D rows", {2, 3, 4}, 2, 5, true, true, false},
      {"3-D flattened", {2, 3, 4}, 1, 5, true, false, true},
      {"one element", {1, 1}, 1, 1, true, false, true},
      {"no rows", {0, 4}, 1, 3, true, false, true},
      {"no columns", {2, 4}, 1, 0, false, false, false},
  };
  for (const FcCase& c : cases) {
    SCOPED_TRACE(c.name);
    const int64_t m = framework::Product(c.input, 0, c.in_num_col_dims);
    const int64_t k = framework::Product(c.input, c.in_num_col_dims,
                                         static_cast<int>(c.input.size()));
    const auto in = RandomTensor<float>(c.input, -1, 1, 1);
    const auto w = RandomTensor<float>({k, c.n}, -1, 1, 2);
    const auto bias =
        RandomTensor<float>(c.bias_2d ? DDim{1, c.n} : DDim{c.n}, -1, 1, 3);
    OpTester t("fc");
    t.Input("Input", in).Input("W", w).Output("Out");
    if (c.bias) t.Input("Bias", bias);
    if (c.in_num_col_dims != 1) t.Attr("in_num_col_dims", c.in_num_col_dims);
    if (c.relu) t.Attr("activation_type", std::string("relu"));
    t.Run();
    DDim out_dims(c.input.begin(), c.input.begin() + c.in_num_col_dims);
    out_dims.push_back(c.n);
    ExpectTensorNear(
        t.GetOutput("Out"),
        MakeTensor<float>(
            out_dims,
            NaiveFc(ToVector<float>(in), ToVector<float>(w),
                    c.bias ? ToVector<float>(bias) : std::vector<float>{}, m, k,
                    c.n, c.relu)));
    t.Run(framework::LibraryType::Plain(), /*threads=*/3);
    ExpectTensorNear(
        t.GetOutput("Out"),
        MakeTensor<float>(
            out_dims,
            NaiveFc(ToVector<float>(in), ToVector<float>(w),
                    c.bias ? ToVector<float>(bias) : std::vector<float>{}, m, k,
                    c.n, c.relu)));
  }
}

TEST(FcOp, KeepsLoDAndRunsDouble) {
  OpTester t("fc");
  t.Input("Input", MakeTensor<double>({3, 2}, {1, 2, 3, 4, 5, 6}, {{0, 1, 3}}))
      .Input("W", MakeTensor<double>({2, 1}, {1, -1}))
      .Input("Bias", MakeTensor<double>({1}, {0.5}))
      .Output("Out", DataType::kFloat64);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<double>({3, 1}, {-0.5, -0.5, -0.5}, {{0, 1, 3}}));
}

TEST(FcOp, AllKernels) {
  OpTester t("fc");
  t.Input("Input", RandomTensor<float>({4, 3, 8}, -1, 1, 4))
      .Input("W", RandomTensor<float>({8, 6}, -1, 1, 5))
      .Input("Bias", RandomTensor<float>({6}, -1, 1, 6))
      .Output("Out")
      .Attr("in_num_col_dims", 2)
      .Attr("activation_type", std::string("relu"));
  t.RunAllKernels();
}

TEST(FcOp, Errors) {
  auto run = [](DDim in, DDim w, DDim bias, int in_num_col_dims,
                std::string act) {
    OpTester t("fc");
    t.Input("Input", RandomTensor<float>(in))
        .Input("W", RandomTensor<float>(w))
        .Output("Out")
        .Attr("in_num_col_dims", in_num_col_dims)
        .Attr("activation_type", act);
    if (!bias.empty()) t.Input("Bias", RandomTensor<float>(bias));
    t.Run();
  };
  ExpectError(
      [&] {
        run({2, 3}, {4, 5}, {}, 1, "");
      },
      ErrorCode::kInvalidArgument, {"fc", "[2, 3]", "[4, 5]"});
  ExpectError(
      [&] {
        run({2, 3}, {3, 5, 1}, {}, 1, "");
      },
      ErrorCode::kInvalidArgument, {"fc", "W must be 2-D"});
  ExpectError(
      [&] {
        run({2, 3}, {3, 5}, {4}, 1, "");
      },
      ErrorCode::kInvalidArgument, {"fc", "Bias dims [4]"});
  ExpectError(
      [&] {
        run({2, 3}, {3, 5}, {}, 2, "");
      },
      ErrorCode::kInvalidArgument, {"fc", "in_num_col_dims", "[2, 3]"});
  ExpectError(
      [&] {
        run({2, 3}, {3, 5}, {}, 1, "tanh");
      },
      ErrorCode::kInvalidArgument, {"activation_type", "tanh"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
