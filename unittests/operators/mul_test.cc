// mul: flatten X at x_num_col_dims and Y at y_num_col_dims, then one matrix
// product (ops.md section 10.1).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/matmul_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DDim;
using framework::Tensor;

int64_t ProductOf(const DDim& dims, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end; ++i) n *= dims[i];
  return n;
}

// X as [prod(X.dims[:xn]), prod(X.dims[xn:])] @ Y as [prod(Y.dims[:yn]),
// prod(Y.dims[yn:])], from the raw row-major values.
template <typename T>
std::vector<double> ReferenceMul(const Tensor& x,
                                 const Tensor& y,
                                 int x_num_col_dims,
                                 int y_num_col_dims) {
  const int64_t m = ProductOf(x.dims(), 0, x_num_col_dims);
  const int64_t k = ProductOf(x.dims(), x_num_col_dims, x.dims().size());
  const int64_t n = ProductOf(y.dims(), y_num_col_dims, y.dims().size());
  const std::vector<T> xv = ToVector<T>(x);
  const std::vector<T> yv = ToVector<T>(y);
  const std::vector<double> a(xv.begin(), xv.end());
  const std::vector<double> b(yv.begin(), yv.end());
  std::vector<double> out;
  NaiveMatmul(a.data(), b.data(), m, k, n, 1.0, &out);
  return out;
}

template <typename T>
void CheckMul(const DDim& x_dims,
              const DDim& y_dims,
              int x_num_col_dims,
              int y_num_col_dims,
              const DDim& out_dims,
              int threads = 1) {
  SCOPED_TRACE(::testing::Message()
               << "X " << x_dims << " x_num_col_dims=" << x_num_col_dims
               << ", Y " << y_dims << " y_num_col_dims=" << y_num_col_dims
               << ", threads=" << threads);
  Tensor x = RefRandom<T>(x_dims, 1);
  Tensor y = RefRandom<T>(y_dims, 2);
  OpTester t("mul");
  t.Input("X", x).Input("Y", y).Output("Out", framework::ToDataType<T>());
  t.Attr("x_num_col_dims", x_num_col_dims)
      .Attr("y_num_col_dims", y_num_col_dims);
  t.Run(framework::LibraryType::Plain(), threads);
  const double tol = RefTolerance<T>();
  ExpectTensorNear(t.GetOutput("Out"),
                   RefTensor<T>(out_dims, ReferenceMul<T>(x, y, x_num_col_dims,
                                                          y_num_col_dims)),
                   tol, tol);
}

TEST(MulOp, HandComputed) {
  OpTester t("mul");
  t.Input("X", MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}))
      .Input("Y", MakeTensor<float>({3, 2}, {7, 8, 9, 10, 11, 12}))
      .Output("Out");
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({2, 2}, {58, 64, 139, 154}));
}

TEST(MulOp, FcOnNchwInput) {
  // The classic fc: X [N, C, H, W] flattened to [N, C*H*W] (defaults, no
  // attributes set).
  Tensor x = RandomTensor<float>({2, 3, 4, 5}, -1, 1, 1);
  Tensor y = RandomTensor<float>({60, 7}, -1, 1, 2);
  OpTester t("mul");
  t.Input("X", x).Input("Y", y).Output("Out");
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   RefTensor<float>({2, 7}, ReferenceMul<float>(x, y, 1, 1)),
                   1e-4, 1e-4);

  CheckMul<float>({2, 3, 4, 5}, {60, 7}, 1, 1, {2, 7});
  CheckMul<double>({1, 64, 7, 7}, {3136, 10}, 1, 1, {1, 10});
  // One sample into a wide layer: the column-split path with threads.
  CheckMul<float>({1, 512, 2, 2}, {2048, 1000}, 1, 1, {1, 1000}, 4);
}

TEST(MulOp, NumColDims) {
  // x_num_col_dims = 2: X [2, 3, 4] as [6, 4]; Out keeps X's [2, 3].
  CheckMul<float>({2, 3, 4}, {4, 5}, 2, 1, {2, 3, 5});
  // y_num_col_dims = 2: Y [2, 2, 5] as [4, 5].
  CheckMul<float>({3, 4}, {2, 2, 5}, 1, 2, {3, 5});
  // Y's trailing dims are kept in Out.
  CheckMul<float>({3, 4}, {4, 2, 3}, 1, 1, {3, 2, 3});
  CheckMul<float>({2, 3, 4, 5}, {4, 5, 6, 1}, 2, 2, {2, 3, 6, 1});
}

TEST(MulOp, NumColDimsStoredAsLong) {
  // Attributes convert numerically across file versions.
  Tensor x = RandomTensor<float>({2, 3, 4}, -1, 1, 1);
  Tensor y = RandomTensor<float>({4, 5}, -1, 1, 2);
  OpTester t("mul");
  t.Input("X", x).Input("Y", y).Output("Out").Attr("x_num_col_dims",
                                                   int64_t{2});
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   RefTensor<float>({2, 3, 5}, ReferenceMul<float>(x, y, 2, 1)),
                   1e-5, 1e-5);
}

TEST(MulOp, ZeroSizedDims) {
  // K = 0: zeros.
  {
    OpTester t("mul");
    t.Input("X", MakeTensor<float>({3, 0}, {}))
        .Input("Y", MakeTensor<float>({0, 4}, {}))
        .Output("Out");
    t.Run();
    ExpectTensorNear(t.GetOutput("Out"),
                     MakeTensor<float>({3, 4}, std::vector<float>(12, 0.f)));
  }
  CheckMul<float>({2, 0, 3}, {0, 5}, 1, 1, {2, 5});
  // M = 0 (an empty batch) and N = 0.
  CheckMul<float>({0, 3, 2, 2}, {12, 5}, 1, 1, {0, 5});
  CheckMul<float>({3, 4}, {4, 0}, 1, 1, {3, 0});
}

TEST(MulOp, OneByOne) {
  CheckMul<float>({1, 1}, {1, 1}, 1, 1, {1, 1});
  CheckMul<float>({1, 1, 1, 1}, {1, 1}, 1, 1, {1, 1});
}

TEST(MulOp, OddSizes) {
  CheckMul<float>({13, 127}, {127, 13}, 1, 1, {13, 13});
  CheckMul<float>({127, 13}, {13, 127}, 1, 1, {127, 127}, 2);
  CheckMul<double>({127, 127}, {127, 127}, 1, 1, {127, 127}, 4);
}

TEST(MulOp, OutputKeepsLodOfX) {
  const framework::LoD lod = {{0, 1, 3}};
  OpTester t("mul");
  t.Input("X", MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}, lod))
      .Input("Y", MakeTensor<float>({2, 2}, {1, 0, 0, 2}))
      .Output("Out");
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({3, 2}, {1, 4, 3, 8, 5, 12}, lod));
}

TEST(MulOp, WidthMismatchNamesBothShapes) {
  OpTester t("mul");
  t.Input("X", RandomTensor<float>({2, 3, 4}))
      .Input("Y", RandomTensor<float>({11, 5}))
      .Output("Out");
  ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
              {"mul", "[2, 3, 4]", "[11, 5]", "12", "11"});
}

TEST(MulOp, NumColDimsOutOfRange) {
  auto run = [](int x_num_col_dims, int y_num_col_dims) {
    OpTester t("mul");
    t.Input("X", RandomTensor<float>({2, 3}))
        .Input("Y", RandomTensor<float>({3, 4}))
        .Output("Out")
        .Attr("x_num_col_dims", x_num_col_dims)
        .Attr("y_num_col_dims", y_num_col_dims);
    t.Run();
  };
  ExpectError([&] { run(2, 1); }, ErrorCode::kInvalidArgument,
              {"mul", "x_num_col_dims", "[2, 3]", "got 2"});
  ExpectError([&] { run(0, 1); }, ErrorCode::kInvalidArgument,
              {"mul", "x_num_col_dims", "got 0"});
  ExpectError([&] { run(1, 2); }, ErrorCode::kInvalidArgument,
              {"mul", "y_num_col_dims", "[3, 4]", "got 2"});
}

TEST(MulOp, AllKernelsMatchPlain) {
  OpTester t("mul");
  t.Input("X", RandomTensor<float>({13, 3, 2, 2}))
      .Input("Y", RandomTensor<float>({12, 17}, -1, 1, 2))
      .Output("Out");
  t.RunAllKernels(1e-4, 1e-4);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
