#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;
using framework::DDim;
using framework::LoD;
using framework::Tensor;

// Rows [1, 2], [3, -4] | (empty) | [5, 6] | [-1, 0], [2, 8].
Tensor FourSequences() {
  return MakeTensor<float>({5, 2}, {1, 2, 3, -4, 5, 6, -1, 0, 2, 8},
                           {{0, 2, 2, 3, 5}});
}

OpTester Pool(const Tensor& x, const std::string& type, float pad_value) {
  OpTester t("sequence_pool");
  t.Input("X", x)
      .Output("Out", x.dtype())
      .Output("MaxIndex", DataType::kInt32)
      .Attr("pooltype", type)
      .Attr("pad_value", pad_value);
  t.Run();
  return t;
}

TEST(SequencePoolOp, EveryPoolTypeByHand) {
  const float p = 7.5f;  // the empty sequence's row
  const float r2 = std::sqrt(2.0f);
  const std::vector<std::pair<std::string, std::vector<float>>> cases = {
      {"SUM", {4, -2, p, p, 5, 6, 1, 8}},
      {"AVERAGE", {2, -1, p, p, 5, 6, 0.5f, 4}},
      {"SQRT", {4 / r2, -2 / r2, p, p, 5, 6, 1 / r2, 8 / r2}},
      {"MAX", {3, 2, p, p, 5, 6, 2, 8}},
      {"LAST", {3, -4, p, p, 5, 6, 2, 8}},
      {"FIRST", {1, 2, p, p, 5, 6, -1, 0}},
  };
  for (const auto& [type, expected] : cases) {
    SCOPED_TRACE(type);
    OpTester t = Pool(FourSequences(), type, p);
    // One level of LoD is removed: Out has none.
    ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({4, 2}, expected));
  }
}

TEST(SequencePoolOp, MaxIndexIsTheRowOfX) {
  OpTester t = Pool(FourSequences(), "MAX", 0);
  // Rows of X (not positions in the sequence); -1 for the empty sequence.
  ExpectTensorNear(t.GetOutput("MaxIndex"),
                   MakeTensor<int32_t>({4, 2}, {1, 0, -1, -1, 2, 2, 4, 4}));
  // Ties keep the first row.
  OpTester tie = Pool(MakeTensor<float>({3, 1}, {4, 4, 4}, {{0, 3}}), "MAX", 0);
  ExpectTensorNear(tie.GetOutput("MaxIndex"), MakeTensor<int32_t>({1, 1}, {0}));
}

TEST(SequencePoolOp, DefaultsAreAverageAndZeroPad) {
  OpTester t("sequence_pool");
  t.Input("X", MakeTensor<float>({3, 1}, {1, 2, 6}, {{0, 0, 3}})).Output("Out");
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({2, 1}, {0, 3}));
}

TEST(SequencePoolOp, TwoLevelLoDKeepsTheFirstLevel) {
  // 2 paragraphs of 2 and 1 sentences; sentences of 2, 0, 1 and 2 rows.
  Tensor x = FourSequences();
  x.set_lod({{0, 2, 4}, {0, 2, 2, 3, 5}});
  OpTester t = Pool(x, "SUM", -1);
  ExpectTensorNear(
      t.GetOutput("Out"),
      MakeTensor<float>({4, 2}, {4, -2, -1, -1, 5, 6, 1, 8}, {{0, 2, 4}}));
}

TEST(SequencePoolOp, HigherRankRowsAndDouble) {
  // Rows of shape [2, 3]; a naive loop over sequences gives the reference.
  const std::vector<size_t> offsets = {0, 1, 1, 13, 14, 20};
  Tensor x = RandomTensor<double>({20, 2, 3}, -3, 3, 4);
  x.set_lod({offsets});
  const std::vector<double> in = ToVector<double>(x);
  for (const std::string type :
       {"SUM", "AVERAGE", "SQRT", "MAX", "LAST", "FIRST"}) {
    SCOPED_TRACE(type);
    std::vector<double> expected;
    for (size_t s = 0; s + 1 < offsets.size(); ++s) {
      const size_t begin = offsets[s];
      const size_t end = offsets[s + 1];
      for (size_t j = 0; j < 6; ++j) {
        if (begin == end) {
          expected.push_back(0.25);
          continue;
        }
        double sum = 0;
        double max = in[begin * 6 + j];
        for (size_t r = begin; r < end; ++r) {
          sum += in[r * 6 + j];
          max = std::max(max, in[r * 6 + j]);
        }
        const double n = static_cast<double>(end - begin);
        if (type == "SUM") expected.push_back(sum);
        if (type == "AVERAGE") expected.push_back(sum / n);
        if (type == "SQRT") expected.push_back(sum / std::sqrt(n));
        if (type == "MAX") expected.push_back(max);
        if (type == "LAST") expected.push_back(in[(end - 1) * 6 + j]);
        if (type == "FIRST") expected.push_back(in[begin * 6 + j]);
      }
    }
    OpTester t = Pool(x, type, 0.25f);
    ExpectTensorNear(t.GetOutput("Out"),
                     MakeTensor<double>({5, 2, 3}, expected), 1e-12, 1e-12);
  }
}

TEST(SequencePoolOp, OnlyEmptySequencesAndNoSequences) {
  OpTester t = Pool(MakeTensor<float>({0, 3}, {}, {{0, 0, 0}}), "MAX", -2);
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({2, 3}, std::vector<float>(6, -2)));
  ExpectTensorNear(t.GetOutput("MaxIndex"),
                   MakeTensor<int32_t>({2, 3}, std::vector<int32_t>(6, -1)));
  OpTester none = Pool(MakeTensor<float>({0, 3}, {}, {{0}}), "SUM", 0);
  EXPECT_EQ(none.GetOutput("Out").dims(), (DDim{0, 3}));
}

TEST(SequencePoolOp, Errors) {
  ExpectError(
      [] {
        Pool(MakeTensor<float>({2, 2}, {1, 2, 3, 4}), "SUM", 0);
      },
      ErrorCode::kInvalidArgument, {"sequence_pool", "LoD", "[2, 2]"});
  ExpectError([] { Pool(FourSequences(), "MIN", 0); },
              ErrorCode::kInvalidArgument, {"pooltype", "'MIN'"});
  ExpectError(
      [] {
        Pool(MakeTensor<float>({2, 1}, {1, 2}, {{0, 1, 3}}), "SUM", 0);
      },
      ErrorCode::kInvalidArgument, {"sequence_pool", "LoD level 0", "[2, 1]"});
  ExpectError(
      [] {
        Tensor x = FourSequences();
        x.set_lod({{0, 2, 3}, {0, 2, 2, 3, 5}});  // 3 != 4 sentences
        Pool(x, "SUM", 0);
      },
      ErrorCode::kInvalidArgument,
      {"sequence_pool", "LoD level 0", "end at 4"});
  ExpectError(
      [] {
        Pool(MakeTensor<float>({3, 1}, {1, 2, 3}, {{0, 2, 1, 3}}), "SUM", 0);
      },
      ErrorCode::kInvalidArgument, {"sequence_pool", "never decrease"});
}

TEST(SequencePoolOp, RunAllKernels) {
  Tensor x = RandomTensor<float>({127, 13}, -1, 1, 3);
  x.set_lod({{0, 13, 13, 100, 127}});
  OpTester t("sequence_pool");
  t.Input("X", x).Output("Out").Attr("pooltype", std::string("SQRT"));
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
