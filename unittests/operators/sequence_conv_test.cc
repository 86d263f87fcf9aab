#include <algorithm>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DDim;
using framework::LoD;
using framework::Tensor;

// The definition, written out: out[t][m] = sum over window slots k and
// columns d of context(t, k)[d] * filter[k * D + d][m], where context(t, k)
// is row t + start + k of t's sequence, or a padding row outside it (zeros
// unless `padding` is given: rows before the sequence count up to up_pad,
// rows after it follow).
template <typename T>
std::vector<T> Reference(const std::vector<T>& x,
                         int64_t width,
                         const std::vector<size_t>& offsets,
                         const std::vector<T>& filter,
                         int64_t out_width,
                         int context_length,
                         int context_start,
                         const std::vector<T>* padding = nullptr) {
  const int64_t rows = static_cast<int64_t>(offsets.back());
  const int up_pad = std::max(0, -context_start);
  std::vector<T> out(rows * out_width, T(0));
  for (size_t s = 0; s + 1 < offsets.size(); ++s) {
    const int64_t begin = offsets[s];
    const int64_t end = offsets[s + 1];
    for (int64_t t = begin; t < end; ++t) {
      for (int k = 0; k < context_length; ++k) {
        const int64_t row = t + context_start + k;
        for (int64_t d = 0; d < width; ++d) {
          T v = 0;
          if (row >= begin && row < end) {
            v = x[row * width + d];
          } else if (padding != nullptr) {
            const int64_t pad_row =
                row < begin ? up_pad - (begin - row) : up_pad + (row - end);
            v = (*padding)[pad_row * width + d];
          }
          for (int64_t m = 0; m < out_width; ++m) {
            out[t * out_width + m] +=
                v * filter[(k * width + d) * out_width + m];
          }
        }
      }
    }
  }
  return out;
}

Tensor RunConv(const Tensor& x,
               const Tensor& filter,
               int context_length,
               int context_start,
               const Tensor* padding = nullptr) {
  OpTester t("sequence_conv");
  t.Input("X", x).Input("Filter", filter).Output("Out", x.dtype());
  t.Attr("contextLength", context_length).Attr("contextStart", context_start);
  if (padding != nullptr) {
    t.Input("PaddingData", *padding).Attr("paddingTrainable", true);
  }
  t.Run();
  return t.GetOutput("Out");
}

TEST(SequenceConvOp, CentredWindowByHand) {
  // One sequence [1, 2, 3], window rows t-1, t, t+1 weighted 1, 10, 100.
  Tensor x = MakeTensor<float>({3, 1}, {1, 2, 3}, {{0, 3}});
  Tensor filter = MakeTensor<float>({3, 1}, {1, 10, 100});
  ExpectTensorNear(RunConv(x, filter, 3, -1),
                   MakeTensor<float>({3, 1}, {210, 321, 32}, {{0, 3}}));
}

TEST(SequenceConvOp, WindowsStopAtSequenceBoundaries) {
  // Sequences [1, 2] and [3]: row 1 does not see 3, row 2 sees neither.
  Tensor x = MakeTensor<float>({3, 1}, {1, 2, 3}, {{0, 2, 3}});
  Tensor filter = MakeTensor<float>({3, 2}, {1, -1, 10, 0, 100, 1});
  ExpectTensorNear(RunConv(x, filter, 3, -1),
                   MakeTensor<float>({3, 2},
                                     {10 + 200, 2,  // 0*1 + 1*10 + 2*100
                                      1 + 20, -1,   // 1*1 + 2*10 + 0
                                      30, 0},       // 0 + 3*10 + 0
                                     {{0, 2, 3}}));
}

TEST(SequenceConvOp, MatchesReferenceForManyWindows) {
  // Lengths 1, 0, 13, 4 and 2; windows of 3 and 5 centred or shifted.
  const std::vector<size_t> offsets = {0, 1, 1, 14, 18, 20};
  const int64_t width = 3;
  const int64_t out_width = 4;
  Tensor x = RandomTensor<float>({20, width}, -1, 1, 7);
  x.set_lod({offsets});
  for (auto [length, start] : std::vector<std::pair<int, int>>{
           {3, -1}, {5, -2}, {3, 0}, {2, 1}, {5, -4}, {1, 0}, {3, -3}}) {
    SCOPED_TRACE("contextLength " + std::to_string(length) + ", contextStart " +
                 std::to_string(start));
    Tensor filter = RandomTensor<float>({length * width, out_width}, -1, 1, 3);
    Tensor out = RunConv(x, filter, length, start);
    ExpectTensorNear(
        out, MakeTensor<float>(
                 {20, out_width},
                 Reference(ToVector<float>(x), width, offsets,
                           ToVector<float>(filter), out_width, length, start),
                 {offsets}));
  }
}

TEST(SequenceConvOp, DoubleAndDefaultStart) {
  // contextStart defaults to 0: the window is rows t, t+1.
  Tensor x = MakeTensor<double>({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8}, {{0, 3, 4}});
  Tensor filter = MakeTensor<double>({4, 1}, {1, 0.5, 0.25, 0.125});
  OpTester t("sequence_conv");
  t.Input("X", x)
      .Input("Filter", filter)
      .Output("Out", framework::DataType::kFloat64)
      .Attr("contextLength", 2);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<double>({4, 1},
                                      {1 + 1 + 0.75 + 0.5,   // rows 0, 1
                                       3 + 2 + 1.25 + 0.75,  // rows 1, 2
                                       5 + 3,                // row 2 only
                                       7 + 4},               // its own seq
                                      {{0, 3, 4}}),
                   1e-12, 1e-12);
}

TEST(SequenceConvOp, EmptySequencesAndEmptyInput) {
  Tensor filter = MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  // The empty sequences produce no rows and do not join their
  // neighbours: each one-row sequence only sees itself (filter row 1).
  Tensor x = MakeTensor<float>({2, 1}, {1, 2}, {{0, 0, 1, 1, 2}});
  ExpectTensorNear(RunConv(x, filter, 3, -1),
                   MakeTensor<float>({2, 2}, {3, 4, 6, 8}, {{0, 0, 1, 1, 2}}));
  Tensor none = MakeTensor<float>({0, 1}, {}, {{0, 0, 0}});
  Tensor out = RunConv(none, filter, 3, -1);
  EXPECT_EQ(out.dims(), (DDim{0, 2}));
  EXPECT_EQ(out.lod(), (LoD{{0, 0, 0}}));
}

TEST(SequenceConvOp, TrainablePaddingByHand) {
  // Up pad 1, down pad 1: row 0 sees pad row 0, row 1 sees pad row 1.
  Tensor x = MakeTensor<float>({2, 1}, {2, 3}, {{0, 2}});
  Tensor filter = MakeTensor<float>({3, 1}, {1, 10, 100});
  Tensor padding = MakeTensor<float>({2, 1}, {7, 9});
  ExpectTensorNear(
      RunConv(x, filter, 3, -1, &padding),
      MakeTensor<float>({2, 1}, {7 + 20 + 300, 2 + 30 + 900}, {{0, 2}}));
  // contextStart 2 on a one-row sequence: both window rows lie after it,
  // at distances 1 and 2, so they take pad rows 1 and 2 of 3 (Paddle's
  // ContextProjectFunctor traced by hand).
  Tensor one = MakeTensor<float>({1, 1}, {5}, {{0, 1}});
  Tensor pad3 = MakeTensor<float>({3, 1}, {100, 200, 300});
  Tensor f2 = MakeTensor<float>({2, 1}, {1, 2});
  ExpectTensorNear(RunConv(one, f2, 2, 2, &pad3),
                   MakeTensor<float>({1, 1}, {200 + 600}, {{0, 1}}));
}

TEST(SequenceConvOp, TrainablePaddingMatchesReference) {
  const std::vector<size_t> offsets = {0, 1, 3, 3, 10};
  const int64_t width = 2;
  Tensor x = RandomTensor<float>({10, width}, -1, 1, 11);
  x.set_lod({offsets});
  for (auto [length, start] :
       std::vector<std::pair<int, int>>{{3, -1}, {5, -2}, {4, 1}, {2, -3}}) {
    SCOPED_TRACE("contextLength " + std::to_string(length) + ", contextStart " +
                 std::to_string(start));
    const int pads = std::max(0, -start) + std::max(0, start + length - 1);
    Tensor padding = RandomTensor<float>({pads, width}, -2, 2, 5);
    Tensor filter = RandomTensor<float>({length * width, 3}, -1, 1, 9);
    const std::vector<float> pad_values = ToVector<float>(padding);
    ExpectTensorNear(
        RunConv(x, filter, length, start, &padding),
        MakeTensor<float>(
            {10, 3},
            Reference(ToVector<float>(x), width, offsets,
                      ToVector<float>(filter), 3, length, start, &pad_values),
            {offsets}));
  }
}

TEST(SequenceConvOp, Errors) {
  Tensor x = MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}, {{0, 1, 3}});
  Tensor filter = RandomTensor<float>({6, 4});
  ExpectError(
      [&] {
        RunConv(MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}), filter, 3, -1);
      },
      ErrorCode::kInvalidArgument, {"sequence_conv", "LoD", "[3, 2]"});
  ExpectError(
      [&] {
        RunConv(x, RandomTensor<float>({5, 4}), 3, -1);
      },
      ErrorCode::kInvalidArgument,
      {"sequence_conv", "Filter", "[5, 4]", "contextLength 3"});
  ExpectError(
      [&] {
        RunConv(MakeTensor<float>({3, 1, 2}, {1, 2, 3, 4, 5, 6}, {{0, 3}}),
                filter, 3, -1);
      },
      ErrorCode::kInvalidArgument, {"sequence_conv", "2-D", "[3, 1, 2]"});
  ExpectError(
      [&] {
        RunConv(MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}, {{0, 1, 4}}),
                filter, 3, -1);
      },
      ErrorCode::kInvalidArgument, {"sequence_conv", "LoD level 0", "[3, 2]"});
  ExpectError(
      [&] {
        OpTester t("sequence_conv");
        t.Input("X", x).Input("Filter", filter).Output("Out");
        t.Attr("contextLength", 3).Attr("contextStride", 2);
        t.Run();
      },
      ErrorCode::kUnimplemented, {"sequence_conv", "contextStride is 2"});
  ExpectError(
      [&] {
        OpTester t("sequence_conv");
        t.Input("X", x).Input("Filter", filter).Output("Out");
        t.Attr("contextLength", 3).Attr("paddingTrainable", true);
        t.Run();
      },
      ErrorCode::kInvalidArgument, {"sequence_conv", "PaddingData"});
  Tensor bad_padding = RandomTensor<float>({1, 2});
  ExpectError([&] { RunConv(x, filter, 3, -1, &bad_padding); },
              ErrorCode::kInvalidArgument,
              {"sequence_conv", "PaddingData", "[1, 2]", "1 + 1"});
  ExpectError(
      [&] {
        Tensor f = RandomTensor<float>({2, 4});
        RunConv(x, f, 1, 0, &bad_padding);
      },
      ErrorCode::kInvalidArgument, {"sequence_conv", "paddingTrainable"});
  ExpectError(
      [&] {
        RunConv(x, RandomTensor<float>({0, 4}), 0, 0);
      },
      ErrorCode::kInvalidArgument, {"contextLength"});
}

TEST(SequenceConvOp, RunAllKernels) {
  Tensor x = RandomTensor<float>({127, 13}, -1, 1, 2);
  x.set_lod({{0, 1, 60, 60, 127}});
  OpTester t("sequence_conv");
  t.Input("X", x)
      .Input("Filter", RandomTensor<float>({5 * 13, 7}))
      .Output("Out")
      .Attr("contextLength", 5)
      .Attr("contextStart", -2);
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
