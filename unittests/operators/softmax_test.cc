#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::Tensor;

constexpr int kNoAxis = -100;

Tensor RunSoftmax(const Tensor& x, int axis = kNoAxis, int threads = 1) {
  OpTester t("softmax");
  t.Input("X", x).Output("Out", x.dtype());
  if (axis != kNoAxis) t.Attr("axis", axis);
  t.Run(framework::LibraryType::Plain(), threads);
  return t.GetOutput("Out");
}

// Softmax along `axis` in double precision, one column at a time.
template <typename T>
Tensor ReferenceSoftmax(const Tensor& x, int axis) {
  const framework::DDim& d = x.dims();
  const int rank = static_cast<int>(d.size());
  if (axis < 0) axis += rank;
  const int64_t n = d[axis];
  const int64_t inner = framework::Product(d, axis + 1, rank);
  const int64_t outer = framework::Product(d, 0, axis);
  const T* in = x.data<T>();
  std::vector<T> out(x.numel());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t k) { return (o * n + k) * inner + i; };
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < n; ++k) mx = std::max(mx, double(in[at(k)]));
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) sum += std::exp(in[at(k)] - mx);
      for (int64_t k = 0; k < n; ++k) {
        out[at(k)] = static_cast<T>(std::exp(in[at(k)] - mx) / sum);
      }
    }
  }
  return MakeTensor<T>(d, out, x.lod());
}

TEST(SoftmaxOp, ByHand) {
  // Default axis -1; [1, 2, 3] -> e^k / (e + e^2 + e^3).
  ExpectTensorNear(
      RunSoftmax(MakeTensor<float>({2, 3}, {1, 2, 3, 0, 0, 0})),
      MakeTensor<float>({2, 3}, {0.090030573f, 0.244728471f, 0.665240956f,
                                 1.0f / 3, 1.0f / 3, 1.0f / 3}),
      1e-6, 1e-6);
  // axis 0 of the same tensor.
  const float a = 1 / (1 + std::exp(-1.0f));
  const float b = 1 / (1 + std::exp(-2.0f));
  const float c = 1 / (1 + std::exp(-3.0f));
  ExpectTensorNear(RunSoftmax(MakeTensor<float>({2, 3}, {1, 2, 3, 0, 0, 0}), 0),
                   MakeTensor<float>({2, 3}, {a, b, c, 1 - a, 1 - b, 1 - c}),
                   1e-6, 1e-6);
}

TEST(SoftmaxOp, EveryAxisMatchesReference) {
  const Tensor x = RandomTensor<float>({3, 4, 5, 6}, -4, 4);
  for (int axis : {0, 1, 2, 3, -1, -2, -3, -4}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    ExpectTensorNear(RunSoftmax(x, axis), ReferenceSoftmax<float>(x, axis),
                     1e-6, 1e-5);
  }
  const Tensor xd = RandomTensor<double>({13, 127}, -4, 4);
  for (int axis : {0, 1, -1}) {
    ExpectTensorNear(RunSoftmax(xd, axis), ReferenceSoftmax<double>(xd, axis),
                     1e-14, 1e-12);
  }
}

TEST(SoftmaxOp, LargeValuesAreStable) {
  const Tensor x =
      MakeTensor<float>({2, 3}, {1000, 1001, 1002, -1000, -1001, -1002});
  ExpectTensorNear(
      RunSoftmax(x),
      MakeTensor<float>({2, 3}, {0.090030573f, 0.244728471f, 0.665240956f,
                                 0.665240956f, 0.244728471f, 0.090030573f}),
      1e-6, 1e-5);
  // Strided columns (axis 0) use a different loop.
  ExpectTensorNear(RunSoftmax(x, 0), ReferenceSoftmax<float>(x, 0), 1e-6, 1e-5);
  const Tensor big = RandomTensor<float>({5, 7}, 1e4, 3e4);
  for (int axis : {0, 1}) {
    ExpectTensorNear(RunSoftmax(big, axis), ReferenceSoftmax<float>(big, axis),
                     1e-6, 1e-5);
  }
}

TEST(SoftmaxOp, SmallAndEmptyShapes) {
  // 0-D gives 1, whatever the value.
  ExpectTensorNear(RunSoftmax(MakeTensor<float>({}, {42})),
                   MakeTensor<float>({}, {1}), 0, 0);
  ExpectTensorNear(RunSoftmax(MakeTensor<float>({}, {-7}), 0),
                   MakeTensor<float>({}, {1}), 0, 0);
  ExpectTensorNear(RunSoftmax(MakeTensor<float>({1}, {42})),
                   MakeTensor<float>({1}, {1}), 0, 0);
  ExpectTensorNear(RunSoftmax(MakeTensor<float>({3, 1}, {5, -2, 9})),
                   MakeTensor<float>({3, 1}, {1, 1, 1}), 0, 0);
  EXPECT_EQ(RunSoftmax(RandomTensor<float>({2, 0, 3}), 1).dims(),
            framework::DDim({2, 0, 3}));
  EXPECT_EQ(RunSoftmax(RandomTensor<float>({0, 4})).dims(),
            framework::DDim({0, 4}));
  const Tensor x = RandomTensor<float>({127, 13});
  ExpectTensorNear(RunSoftmax(x, 0), ReferenceSoftmax<float>(x, 0), 1e-6, 1e-5);
}

TEST(SoftmaxOp, ThreadedMatchesReference) {
  const Tensor rows = RandomTensor<float>({1031, 211}, -4, 4);
  ExpectTensorNear(RunSoftmax(rows, -1, 4), ReferenceSoftmax<float>(rows, -1),
                   1e-6, 1e-5);
  // Column ranges that start mid-way through an outer index.
  const Tensor cols = RandomTensor<float>({3, 37, 1013}, -4, 4);
  for (int axis : {0, 1}) {
    ExpectTensorNear(RunSoftmax(cols, axis, 4),
                     ReferenceSoftmax<float>(cols, axis), 1e-6, 1e-5);
  }
}

TEST(SoftmaxOp, KeepsLoD) {
  const Tensor x = MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}, {{0, 1, 3}});
  ExpectTensorNear(RunSoftmax(x), ReferenceSoftmax<float>(x, -1), 1e-6, 1e-6);
}

TEST(SoftmaxOp, BadAxis) {
  ExpectError(
      [] {
        RunSoftmax(RandomTensor<float>({2, 3}), 2);
      },
      ErrorCode::kInvalidArgument, {"softmax", "axis 2", "[2, 3]"});
  ExpectError(
      [] {
        RunSoftmax(RandomTensor<float>({2, 3}), -3);
      },
      ErrorCode::kInvalidArgument, {"softmax", "axis -3"});
  ExpectError([] { RunSoftmax(MakeTensor<float>({}, {1}), 1); },
              ErrorCode::kInvalidArgument, {"softmax", "axis 1", "[]"});
}

TEST(SoftmaxOp, AllKernelsAgree) {
  OpTester t("softmax");
  t.Input("X", RandomTensor<float>({2, 3, 13}, -5, 5)).Output("Out");
  t.RunAllKernels();
  OpTester t1("softmax");
  t1.Input("X", RandomTensor<float>({2, 3, 13}, -5, 5))
      .Attr("axis", 1)
      .Output("Out");
  t1.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
