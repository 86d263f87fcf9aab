// matmul (v1): alpha * op(X) @ op(Y) with equal (not broadcast) batch
// counts (ops.md section 10.2).
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

// v1 semantics written out: 1-D operands become [1, K] / [K, 1] before the
// transposes; leading dims flatten to one batch count, and a side without
// batch dims is reused for every batch.
template <typename T>
std::vector<double> ReferenceMatmul(const Tensor& x,
                                    const Tensor& y,
                                    bool transpose_x,
                                    bool transpose_y,
                                    double alpha) {
  const RefOperand a = ToRefOperand<T>(x, /*vector_as_row=*/true, transpose_x);
  const RefOperand b = ToRefOperand<T>(y, /*vector_as_row=*/false, transpose_y);
  const bool a_batched = !a.batch.empty();
  const bool b_batched = !b.batch.empty();
  const int64_t count =
      a_batched ? a.BatchCount() : (b_batched ? b.BatchCount() : 1);
  std::vector<double> out;
  for (int64_t i = 0; i < count; ++i) {
    NaiveMatmul(a.Matrix(a_batched ? i : 0), b.Matrix(b_batched ? i : 0),
                a.rows, a.cols, b.cols, alpha, &out);
  }
  return out;
}

// Runs matmul on random operands and compares with the reference; the
// expected output dims are written by hand in each case.
template <typename T>
void CheckMatmul(const DDim& x_dims,
                 const DDim& y_dims,
                 bool transpose_x,
                 bool transpose_y,
                 const DDim& out_dims,
                 float alpha = 1.0f,
                 int threads = 1) {
  SCOPED_TRACE(::testing::Message()
               << "X " << x_dims << " transpose_X=" << transpose_x << ", Y "
               << y_dims << " transpose_Y=" << transpose_y
               << ", alpha=" << alpha << ", threads=" << threads);
  Tensor x = RefRandom<T>(x_dims, 1);
  Tensor y = RefRandom<T>(y_dims, 2);
  OpTester t("matmul");
  t.Input("X", x).Input("Y", y).Output("Out", framework::ToDataType<T>());
  t.Attr("transpose_X", transpose_x)
      .Attr("transpose_Y", transpose_y)
      .Attr("alpha", alpha);
  t.Run(framework::LibraryType::Plain(), threads);
  const double tol = RefTolerance<T>();
  ExpectTensorNear(
      t.GetOutput("Out"),
      RefTensor<T>(out_dims,
                   ReferenceMatmul<T>(x, y, transpose_x, transpose_y, alpha)),
      tol, tol);
}

TEST(MatmulOp, HandComputedWithAlpha) {
  OpTester t("matmul");
  t.Input("X", MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}))
      .Input("Y", MakeTensor<float>({3, 2}, {7, 8, 9, 10, 11, 12}))
      .Output("Out")
      .Attr("alpha", 0.5f);
  t.Run();
  // 0.5 * [58 64; 139 154]
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({2, 2}, {29, 32, 69.5, 77}));
}

TEST(MatmulOp, DefaultsAreNoTransposeAndUnitAlpha) {
  OpTester t("matmul");
  t.Input("X", MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}))
      .Input("Y", MakeTensor<float>({3, 2}, {7, 8, 9, 10, 11, 12}))
      .Output("Out");
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({2, 2}, {58, 64, 139, 154}));
}

TEST(MatmulOp, TwoDAllTransposes) {
  CheckMatmul<float>({4, 3}, {3, 5}, false, false, {4, 5});
  CheckMatmul<float>({3, 4}, {3, 5}, true, false, {4, 5});
  CheckMatmul<float>({4, 3}, {5, 3}, false, true, {4, 5});
  CheckMatmul<float>({3, 4}, {5, 3}, true, true, {4, 5});
}

TEST(MatmulOp, Batched3DAnd4D) {
  CheckMatmul<float>({5, 2, 3}, {5, 3, 4}, false, false, {5, 2, 4});
  CheckMatmul<float>({5, 3, 2}, {5, 4, 3}, true, true, {5, 2, 4});
  CheckMatmul<float>({2, 3, 4, 5}, {2, 3, 5, 6}, false, false, {2, 3, 4, 6});
  CheckMatmul<float>({2, 3, 5, 4}, {2, 3, 6, 5}, true, true, {2, 3, 4, 6});
}

TEST(MatmulOp, EqualBatchCountsOfDifferentShapes) {
  // 2 * 3 == 6 batches: allowed, Out takes X's batch dims.
  CheckMatmul<float>({2, 3, 4, 5}, {6, 5, 2}, false, false, {2, 3, 4, 2});
  CheckMatmul<float>({6, 4, 5}, {3, 2, 5, 2}, false, false, {6, 4, 2});
}

TEST(MatmulOp, TwoDOperandIsReusedPerBatch) {
  CheckMatmul<float>({3, 4, 5}, {5, 6}, false, false, {3, 4, 6});
  CheckMatmul<float>({4, 5}, {3, 5, 6}, false, false, {3, 4, 6});
  CheckMatmul<float>({5, 4}, {2, 3, 6, 5}, true, true, {2, 3, 4, 6});
}

TEST(MatmulOp, VectorOperands) {
  // X [K] -> [1, K]: the 1 is dropped.
  CheckMatmul<float>({5}, {5, 3}, false, false, {3});
  CheckMatmul<float>({5}, {2, 5, 3}, false, false, {2, 3});
  // Y [K] -> [K, 1]: the 1 is dropped.
  CheckMatmul<float>({4, 5}, {5}, false, false, {4});
  CheckMatmul<float>({2, 4, 5}, {5}, false, false, {2, 4});
  // Both: nothing remains, so [1].
  CheckMatmul<float>({5}, {5}, false, false, {1});
}

TEST(MatmulOp, VectorIsPromotedBeforeTranspose) {
  // transpose_X on X [5]: [1, 5] -> [5, 1], so M = 5 stays in Out.
  CheckMatmul<float>({5}, {1, 3}, true, false, {5, 3});
  // With K = 1 the M position is 1 again and is dropped.
  CheckMatmul<float>({1}, {1, 3}, true, false, {3});
  // transpose_Y on Y [4]: [4, 1] -> [1, 4], so N = 4 stays in Out.
  CheckMatmul<float>({3, 1}, {4}, false, true, {3, 4});
  CheckMatmul<float>({2, 3, 1}, {4}, false, true, {2, 3, 4});

  // By hand: [1 2]^T @ [[3 4]] = [[3 4]; [6 8]].
  OpTester t("matmul");
  t.Input("X", MakeTensor<float>({2}, {1, 2}))
      .Input("Y", MakeTensor<float>({1, 2}, {3, 4}))
      .Output("Out")
      .Attr("transpose_X", true);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({2, 2}, {3, 4, 6, 8}));
}

TEST(MatmulOp, Alpha) {
  CheckMatmul<float>({3, 4, 5}, {3, 5, 2}, false, false, {3, 4, 2}, 0.5f);
  CheckMatmul<float>({4, 3}, {5, 4}, true, true, {3, 5}, -2.0f);
  CheckMatmul<double>({5}, {5}, false, false, {1}, 3.0f);
  CheckMatmul<float>({4, 3}, {3, 5}, false, false, {4, 5}, 0.0f);
}

TEST(MatmulOp, ZeroSizedDims) {
  // K = 0: an empty sum is 0 whatever alpha is.
  {
    OpTester t("matmul");
    t.Input("X", MakeTensor<float>({3, 0}, {}))
        .Input("Y", MakeTensor<float>({0, 4}, {}))
        .Output("Out")
        .Attr("alpha", 2.0f);
    t.Run();
    ExpectTensorNear(t.GetOutput("Out"),
                     MakeTensor<float>({3, 4}, std::vector<float>(12, 0.f)));
  }
  CheckMatmul<float>({2, 0, 3}, {2, 0, 4}, true, false, {2, 3, 4});
  // M = 0, N = 0 and an empty batch give empty outputs.
  CheckMatmul<float>({0, 5}, {5, 4}, false, false, {0, 4});
  CheckMatmul<float>({3, 5}, {5, 0}, false, false, {3, 0});
  CheckMatmul<float>({0, 3, 4}, {4, 5}, false, false, {0, 3, 5});
  CheckMatmul<float>({0, 3, 4}, {0, 4, 5}, false, false, {0, 3, 5});
  ExpectEmptyProductsOfAHostileBatch("matmul");
}

TEST(MatmulOp, OneByOne) {
  CheckMatmul<float>({1, 1}, {1, 1}, false, false, {1, 1}, 2.0f);
  CheckMatmul<float>({1}, {1}, true, true, {1});
}

TEST(MatmulOp, OddSizesAndThreads) {
  CheckMatmul<float>({13, 127}, {127, 13}, false, false, {13, 13});
  CheckMatmul<float>({127, 13}, {127, 13}, true, false, {13, 13}, 1.0f, 2);
  CheckMatmul<double>({3, 127, 13}, {3, 127, 13}, true, false, {3, 13, 13},
                      0.25f, 4);
  CheckMatmul<float>({127, 127}, {127, 127}, false, true, {127, 127}, 1.0f, 4);
  CheckMatmul<float>({1, 200}, {700, 200}, false, true, {1, 700}, 1.0f, 4);
}

TEST(MatmulOp, OutputKeepsLodOfX) {
  const framework::LoD lod = {{0, 2, 3}};
  OpTester t("matmul");
  t.Input("X", MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}, lod))
      .Input("Y", MakeTensor<float>({2, 1}, {1, -1}))
      .Output("Out");
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({3, 1}, {-1, -1, -1}, lod));
}

TEST(MatmulOp, InnerDimMismatchNamesBothShapes) {
  OpTester t("matmul");
  t.Input("X", RandomTensor<float>({2, 3}))
      .Input("Y", RandomTensor<float>({2, 3}))
      .Output("Out")
      .Attr("transpose_Y", false);
  ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
              {"matmul", "[2, 3]", "transpose_Y=false", "3 vs 2"});
}

TEST(MatmulOp, BatchCountsMustBeEqual) {
  // matmul_v2 would broadcast [1, ...] against [3, ...]; v1 does not.
  for (const DDim& x_dims : {DDim{2, 3, 4}, DDim{1, 3, 4}}) {
    OpTester t("matmul");
    t.Input("X", RandomTensor<float>(x_dims))
        .Input("Y", RandomTensor<float>({3, 4, 5}))
        .Output("Out");
    ExpectError(
        [&] { t.Run(); }, ErrorCode::kInvalidArgument,
        {"matmul", framework::DimsToString(x_dims), "[3, 4, 5]", "batch"});
  }
}

TEST(MatmulOp, RejectsMultiHead) {
  OpTester t("matmul");
  t.Input("X", RandomTensor<float>({2, 4}))
      .Input("Y", RandomTensor<float>({4, 2}))
      .Output("Out")
      .Attr("head_number", 2);
  ExpectError([&] { t.Run(); }, ErrorCode::kUnimplemented,
              {"matmul", "head_number"});
}

TEST(MatmulOp, AllKernelsMatchPlain) {
  OpTester t("matmul");
  t.Input("X", RandomTensor<float>({2, 3, 17, 13}))
      .Input("Y", RandomTensor<float>({6, 19, 17}, -1, 1, 2))
      .Output("Out")
      .Attr("transpose_X", true)
      .Attr("transpose_Y", true)
      .Attr("alpha", 0.125f);
  t.RunAllKernels(1e-4, 1e-4);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
