// matmul_v2: NumPy matmul with trans_x / trans_y (ops.md section 10.3).
#include <algorithm>
#include <limits>
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

// NumPy semantics written out per output batch: 1-D operands become
// [1, K] / [K, 1] with their flag ignored, batch dims broadcast
// right-aligned, and the output batch index is mapped back with div/mod.
template <typename T>
std::vector<double> ReferenceMatmulV2(const Tensor& x,
                                      const Tensor& y,
                                      bool trans_x,
                                      bool trans_y) {
  const RefOperand a =
      ToRefOperand<T>(x, /*vector_as_row=*/true, x.rank() > 1 && trans_x);
  const RefOperand b =
      ToRefOperand<T>(y, /*vector_as_row=*/false, y.rank() > 1 && trans_y);
  const int rank = static_cast<int>(std::max(a.batch.size(), b.batch.size()));
  DDim xb(rank, 1);
  DDim yb(rank, 1);
  std::copy(a.batch.begin(), a.batch.end(), xb.end() - a.batch.size());
  std::copy(b.batch.begin(), b.batch.end(), yb.end() - b.batch.size());
  DDim ob(rank);
  int64_t count = 1;
  for (int i = 0; i < rank; ++i) {
    ob[i] = xb[i] == 1 ? yb[i] : xb[i];
    count *= ob[i];
  }
  std::vector<double> out;
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t rest = flat;
    int64_t xi = 0;
    int64_t yi = 0;
    int64_t x_mul = 1;
    int64_t y_mul = 1;
    for (int i = rank - 1; i >= 0; --i) {
      const int64_t idx = rest % ob[i];
      rest /= ob[i];
      xi += (xb[i] == 1 ? 0 : idx) * x_mul;
      yi += (yb[i] == 1 ? 0 : idx) * y_mul;
      x_mul *= xb[i];
      y_mul *= yb[i];
    }
    NaiveMatmul(a.Matrix(xi), b.Matrix(yi), a.rows, a.cols, b.cols, 1.0, &out);
  }
  return out;
}

// Runs matmul_v2 on random operands and compares with the reference; the
// expected output dims are written by hand in each case.
template <typename T>
void CheckMatmulV2(const DDim& x_dims,
                   const DDim& y_dims,
                   bool trans_x,
                   bool trans_y,
                   const DDim& out_dims,
                   int threads = 1) {
  SCOPED_TRACE(::testing::Message()
               << "X " << x_dims << " trans_x=" << trans_x << ", Y " << y_dims
               << " trans_y=" << trans_y << ", threads=" << threads);
  Tensor x = RefRandom<T>(x_dims, 1);
  Tensor y = RefRandom<T>(y_dims, 2);
  OpTester t("matmul_v2");
  t.Input("X", x).Input("Y", y).Output("Out", framework::ToDataType<T>());
  t.Attr("trans_x", trans_x).Attr("trans_y", trans_y);
  t.Run(framework::LibraryType::Plain(), threads);
  const double tol = RefTolerance<T>();
  ExpectTensorNear(
      t.GetOutput("Out"),
      RefTensor<T>(out_dims, ReferenceMatmulV2<T>(x, y, trans_x, trans_y)), tol,
      tol);
}

TEST(MatmulV2Op, HandComputed2D) {
  OpTester t("matmul_v2");
  t.Input("X", MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}))
      .Input("Y", MakeTensor<float>({3, 2}, {7, 8, 9, 10, 11, 12}))
      .Output("Out");
  t.Run();
  // [1 2 3; 4 5 6] @ [7 8; 9 10; 11 12]
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({2, 2}, {58, 64, 139, 154}));
}

// Integer products wrap around in two's complement rather than overflow
// (undefined in C++).
TEST(MatmulV2Op, IntegerOverflowWrapsAround) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  for (bool trans_y : {false, true}) {
    OpTester t("matmul_v2");
    t.Input("X", MakeTensor<int32_t>({1, 2}, {kMax, 1 << 16}))
        .Input("Y", MakeTensor<int32_t>(
                        trans_y ? framework::DDim{1, 2} : framework::DDim{2, 1},
                        {2, 1 << 16}))
        .Output("Out", framework::DataType::kInt32)
        .Attr("trans_y", trans_y);
    t.Run();
    // kMax * 2 = -2, 2^16 * 2^16 = 0 (mod 2^32).
    ExpectTensorNear(t.GetOutput("Out"), MakeTensor<int32_t>({1, 1}, {-2}), 0,
                     0);
  }
  constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
  OpTester t("matmul_v2");
  t.Input("X", MakeTensor<int64_t>({1, 2}, {kMax64, kMax64}))
      .Input("Y", MakeTensor<int64_t>({2, 1}, {1, 1}))
      .Output("Out", framework::DataType::kInt64);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<int64_t>({1, 1}, {-2}), 0, 0);
}

TEST(MatmulV2Op, HandComputedBothTransposed) {
  OpTester t("matmul_v2");
  // X^T = [1 2 3; 4 5 6], Y^T = [7 8; 9 10; 11 12].
  t.Input("X", MakeTensor<float>({3, 2}, {1, 4, 2, 5, 3, 6}))
      .Input("Y", MakeTensor<float>({2, 3}, {7, 9, 11, 8, 10, 12}))
      .Output("Out")
      .Attr("trans_x", true)
      .Attr("trans_y", true);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({2, 2}, {58, 64, 139, 154}));
}

TEST(MatmulV2Op, DefaultsAreNoTranspose) {
  // No attributes at all: trans_x = trans_y = false.
  Tensor x = RefRandom<float>({4, 3}, 1);
  Tensor y = RefRandom<float>({3, 5}, 2);
  OpTester t("matmul_v2");
  t.Input("X", x).Input("Y", y).Output("Out");
  t.Run();
  ExpectTensorNear(
      t.GetOutput("Out"),
      RefTensor<float>({4, 5}, ReferenceMatmulV2<float>(x, y, false, false)),
      1e-5, 1e-5);
}

TEST(MatmulV2Op, TwoDAllTransposes) {
  CheckMatmulV2<float>({4, 3}, {3, 5}, false, false, {4, 5});
  CheckMatmulV2<float>({3, 4}, {3, 5}, true, false, {4, 5});
  CheckMatmulV2<float>({4, 3}, {5, 3}, false, true, {4, 5});
  CheckMatmulV2<float>({3, 4}, {5, 3}, true, true, {4, 5});
}

TEST(MatmulV2Op, Batched3DAnd4D) {
  CheckMatmulV2<float>({5, 2, 3}, {5, 3, 4}, false, false, {5, 2, 4});
  CheckMatmulV2<float>({5, 3, 2}, {5, 4, 3}, true, true, {5, 2, 4});
  CheckMatmulV2<float>({2, 3, 4, 5}, {2, 3, 5, 6}, false, false, {2, 3, 4, 6});
  CheckMatmulV2<float>({2, 3, 5, 4}, {2, 3, 5, 6}, true, false, {2, 3, 4, 6});
  CheckMatmulV2<float>({2, 3, 4, 5}, {2, 3, 6, 5}, false, true, {2, 3, 4, 6});
}

TEST(MatmulV2Op, BroadcastBatches) {
  // 2-D against batched on either side.
  CheckMatmulV2<float>({3, 4}, {2, 4, 5}, false, false, {2, 3, 5});
  CheckMatmulV2<float>({2, 3, 4}, {4, 5}, false, false, {2, 3, 5});
  // A size-1 batch dim broadcasts.
  CheckMatmulV2<float>({1, 3, 4}, {6, 4, 5}, false, false, {6, 3, 5});
  CheckMatmulV2<float>({6, 3, 4}, {1, 5, 4}, false, true, {6, 3, 5});
}

TEST(MatmulV2Op, BroadcastBatchesAcrossRanks) {
  // Both sides broadcast a dim, and ranks differ: NumPy gives [2, 5, 3, 6]
  // (not the higher-rank operand's batch dims).
  CheckMatmulV2<float>({2, 1, 3, 4}, {5, 4, 6}, false, false, {2, 5, 3, 6});
  CheckMatmulV2<float>({5, 3, 4}, {2, 1, 4, 6}, false, false, {2, 5, 3, 6});
  CheckMatmulV2<float>({2, 1, 4, 3}, {1, 3, 6, 4}, true, true, {2, 3, 3, 6});
  CheckMatmulV2<float>({7, 1, 1, 2, 3}, {4, 1, 3, 2}, false, false,
                       {7, 4, 1, 2, 2});
}

TEST(MatmulV2Op, VectorOperands) {
  // X [K] acts as [1, K], and the 1 is removed from Out.
  CheckMatmulV2<float>({4}, {4, 5}, false, false, {5});
  CheckMatmulV2<float>({4}, {5, 4}, false, true, {5});
  CheckMatmulV2<float>({4}, {2, 4, 5}, false, false, {2, 5});
  CheckMatmulV2<float>({4}, {3, 1, 5, 4}, false, true, {3, 1, 5});
  // Y [K] acts as [K, 1].
  CheckMatmulV2<float>({3, 4}, {4}, false, false, {3});
  CheckMatmulV2<float>({4, 3}, {4}, true, false, {3});
  CheckMatmulV2<float>({2, 3, 4}, {4}, false, false, {2, 3});
  // Both vectors: a dot product of shape [1].
  CheckMatmulV2<float>({4}, {4}, false, false, {1});
  CheckMatmulV2<float>({1}, {1}, false, false, {1});
}

TEST(MatmulV2Op, VectorIgnoresItsTransposeFlag) {
  CheckMatmulV2<float>({4}, {4, 5}, /*trans_x=*/true, false, {5});
  CheckMatmulV2<float>({3, 4}, {4}, false, /*trans_y=*/true, {3});
  CheckMatmulV2<float>({4}, {4}, true, true, {1});

  // By hand: [1 2 3] . [4 5 6] = 32 with both flags set.
  OpTester t("matmul_v2");
  t.Input("X", MakeTensor<float>({3}, {1, 2, 3}))
      .Input("Y", MakeTensor<float>({3}, {4, 5, 6}))
      .Output("Out")
      .Attr("trans_x", true)
      .Attr("trans_y", true);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({1}, {32}));
}

TEST(MatmulV2Op, ZeroSizedDims) {
  // K = 0: an empty sum, all zeros.
  {
    OpTester t("matmul_v2");
    t.Input("X", MakeTensor<float>({3, 0}, {}))
        .Input("Y", MakeTensor<float>({0, 4}, {}))
        .Output("Out");
    t.Run();
    ExpectTensorNear(t.GetOutput("Out"),
                     MakeTensor<float>({3, 4}, std::vector<float>(12, 0.f)));
  }
  CheckMatmulV2<float>({2, 3, 0}, {2, 0, 4}, false, false, {2, 3, 4});
  CheckMatmulV2<float>({0, 3}, {0, 4}, true, false, {3, 4});
  CheckMatmulV2<float>({0}, {0}, false, false, {1});
  // M = 0, N = 0 and an empty batch give empty outputs.
  CheckMatmulV2<float>({0, 5}, {5, 4}, false, false, {0, 4});
  CheckMatmulV2<float>({3, 5}, {5, 0}, false, false, {3, 0});
  CheckMatmulV2<float>({0, 3, 4}, {4, 5}, false, false, {0, 3, 5});
  // A 0 batch dim broadcasts against 1 to 0 (NumPy), not to 1.
  CheckMatmulV2<float>({0, 3, 4}, {1, 4, 5}, false, false, {0, 3, 5});
  ExpectEmptyProductsOfAHostileBatch("matmul_v2");
}

TEST(MatmulV2Op, OneByOne) {
  CheckMatmulV2<float>({1, 1}, {1, 1}, false, false, {1, 1});
  CheckMatmulV2<float>({1, 1, 1}, {1, 1}, true, true, {1, 1, 1});
}

TEST(MatmulV2Op, OddSizes) {
  CheckMatmulV2<float>({13, 127}, {127, 13}, false, false, {13, 13});
  CheckMatmulV2<float>({127, 13}, {13, 127}, false, false, {127, 127});
  CheckMatmulV2<float>({3, 127, 13}, {1, 13, 127}, true, true, {3, 13, 13});
  CheckMatmulV2<double>({13, 127}, {13, 127}, false, true, {13, 13});
}

TEST(MatmulV2Op, MultiThreadedSplits) {
  // One tall product split by row tiles (127 rows = two tiles).
  CheckMatmulV2<float>({127, 127}, {127, 127}, false, false, {127, 127}, 4);
  CheckMatmulV2<float>({64, 200}, {130, 64}, true, true, {200, 130}, 3);
  // One row, wide: split by columns (an fc on one sample).
  CheckMatmulV2<float>({1, 300}, {300, 1000}, false, false, {1, 1000}, 4);
  CheckMatmulV2<float>({300}, {1000, 300}, false, true, {1000}, 4);
  // Many small batches.
  CheckMatmulV2<double>({64, 13, 13}, {13, 13}, false, false, {64, 13, 13}, 4);
  CheckMatmulV2<int32_t>({1, 3}, {3, 700}, false, false, {1, 700}, 4);
}

TEST(MatmulV2Op, IntegerTypes) {
  CheckMatmulV2<int32_t>({2, 3, 4}, {4, 5}, false, false, {2, 3, 5});
  CheckMatmulV2<int32_t>({2, 1, 4, 3}, {3, 5, 4}, true, true, {2, 3, 3, 5});
  CheckMatmulV2<int64_t>({13, 7}, {13, 9}, true, false, {7, 9});
  CheckMatmulV2<int64_t>({7}, {2, 9, 7}, false, true, {2, 9});
  CheckMatmulV2<int32_t>({3, 0}, {0, 2}, false, false, {3, 2});

  OpTester t("matmul_v2");
  t.Input("X", MakeTensor<int64_t>({2, 2}, {1, 2, 3, 4}))
      .Input("Y", MakeTensor<int64_t>({2}, {5, 6}))
      .Output("Out", framework::DataType::kInt64);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<int64_t>({2}, {17, 39}));
}

TEST(MatmulV2Op, OutputKeepsLodOfX) {
  const framework::LoD lod = {{0, 1, 3}};
  Tensor x = MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}, lod);
  OpTester t("matmul_v2");
  t.Input("X", x).Input("Y", MakeTensor<float>({2, 1}, {1, 1})).Output("Out");
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({3, 1}, {3, 7, 11}, lod));
}

TEST(MatmulV2Op, InnerDimMismatchNamesBothShapes) {
  auto run = [](const DDim& x, const DDim& y, bool trans_x, bool trans_y) {
    OpTester t("matmul_v2");
    t.Input("X", RandomTensor<float>(x))
        .Input("Y", RandomTensor<float>(y))
        .Output("Out")
        .Attr("trans_x", trans_x)
        .Attr("trans_y", trans_y);
    t.Run();
  };
  ExpectError(
      [&] {
        run({2, 3}, {4, 5}, false, false);
      },
      ErrorCode::kInvalidArgument, {"matmul_v2", "[2, 3]", "[4, 5]", "3 vs 4"});
  // Fits only without trans_x.
  ExpectError(
      [&] {
        run({2, 3}, {3, 5}, true, false);
      },
      ErrorCode::kInvalidArgument,
      {"matmul_v2", "[2, 3]", "[3, 5]", "trans_x=true"});
  ExpectError([&] { run({4}, {5}, false, false); }, ErrorCode::kInvalidArgument,
              {"matmul_v2", "[4]", "[5]"});
}

TEST(MatmulV2Op, BatchMismatchNamesBothShapes) {
  OpTester t("matmul_v2");
  t.Input("X", RandomTensor<float>({2, 3, 4}))
      .Input("Y", RandomTensor<float>({3, 4, 5}))
      .Output("Out");
  ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
              {"matmul_v2", "[2, 3, 4]", "[3, 4, 5]", "broadcast"});
}

TEST(MatmulV2Op, RejectsScalarOperand) {
  OpTester t("matmul_v2");
  t.Input("X", MakeTensor<float>({}, {1}))
      .Input("Y", RandomTensor<float>({1, 3}))
      .Output("Out");
  ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
              {"matmul_v2", "X", "rank"});
}

TEST(MatmulV2Op, AllKernelsMatchPlain) {
  OpTester t("matmul_v2");
  t.Input("X", RandomTensor<float>({2, 1, 13, 17}))
      .Input("Y", RandomTensor<float>({3, 19, 17}, -1, 1, 2))
      .Output("Out")
      .Attr("trans_y", true);
  t.RunAllKernels(1e-4, 1e-4);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
