#include <cstdint>
#include <limits>
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

OpTester Fill(const Tensor& input,
              const std::vector<int32_t>& shape,
              DataType dtype = DataType::kFloat32) {
  OpTester t("fill_constant_batch_size_like");
  t.Input("Input", input)
      .Output("Out", dtype)
      .Attr("shape", shape)
      .Attr("dtype", static_cast<int32_t>(dtype));
  return t;
}

TEST(FillConstantBatchSizeLikeOp, DefaultsTakeDim0) {
  OpTester t("fill_constant_batch_size_like");
  t.Input("Input", RandomTensor<float>({3, 5}))
      .Output("Out")
      .Attr("shape", std::vector<int32_t>{-1, 4});
  t.Run();  // value 0, dtype float32, dim 0 of Input into dim 0 of Out
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({3, 4}, std::vector<float>(12, 0)), 0, 0);
}

TEST(FillConstantBatchSizeLikeOp, OtherDimsAndStrValue) {
  // As in PP-OCR's recognizer: shape [4, -1, 64], output_dim_idx 1.
  OpTester t = Fill(RandomTensor<float>({13, 7, 2}), {4, -1, 64});
  t.Attr("output_dim_idx", 1).Attr("str_value", std::string("0.5"));
  t.Attr("value", 3.0f);  // str_value wins
  t.Run();
  ExpectTensorNear(
      t.GetOutput("Out"),
      MakeTensor<float>({4, 13, 64}, std::vector<float>(3328, 0.5f)), 0, 0);
  OpTester d = Fill(RandomTensor<float>({13, 7, 2}), {-1, 1});
  d.Attr("input_dim_idx", 2).Attr("value", -1.5f);
  d.Run();
  ExpectTensorNear(d.GetOutput("Out"),
                   MakeTensor<float>({2, 1}, {-1.5f, -1.5f}), 0, 0);
}

TEST(FillConstantBatchSizeLikeOp, LoDInputGivesTheNumberOfSequences) {
  // 6 rows in 3 sequences: the batch is 3, and Out has no LoD.
  Tensor input =
      MakeTensor<float>({6, 2}, std::vector<float>(12, 1), {{0, 2, 5, 6}});
  OpTester t = Fill(input, {2, -1});
  t.Attr("output_dim_idx", 1).Attr("value", 1.0f);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({2, 3}, std::vector<float>(6, 1)), 0, 0);
  // Two levels: the last level counts.
  input.set_lod({{0, 1, 2}, {0, 4, 5, 6}});
  OpTester two = Fill(input, {-1});
  two.Run();
  EXPECT_EQ(two.GetOutput("Out").dims(), (DDim{3}));
  // Only input_dim_idx 0 is replaced by the sequence count.
  OpTester other = Fill(input, {-1});
  other.Attr("input_dim_idx", 1);
  other.Run();
  EXPECT_EQ(other.GetOutput("Out").dims(), (DDim{2}));
  EXPECT_EQ(other.GetOutput("Out").lod(), LoD{});
}

TEST(FillConstantBatchSizeLikeOp, OutputTypes) {
  Tensor input = RandomTensor<float>({2, 3});
  {
    OpTester t = Fill(input, {-1, 2}, DataType::kInt32);
    t.Attr("value", 7.9f);
    t.Run();
    ExpectTensorNear(t.GetOutput("Out"),
                     MakeTensor<int32_t>({2, 2}, {7, 7, 7, 7}), 0, 0);
  }
  {
    // str_value keeps an int64 exact where the float value cannot.
    const int64_t big = (int64_t(1) << 60) + 3;
    OpTester t = Fill(input, {-1}, DataType::kInt64);
    t.Attr("str_value", std::to_string(big));
    t.Run();
    EXPECT_EQ(ToVector<int64_t>(t.GetOutput("Out")),
              (std::vector<int64_t>{big, big}));
  }
  {
    OpTester t = Fill(input, {1, -1}, DataType::kFloat64);
    t.Attr("output_dim_idx", 1).Attr("str_value", std::string("0.1"));
    t.Run();
    ExpectTensorNear(t.GetOutput("Out"), MakeTensor<double>({1, 2}, {0.1, 0.1}),
                     0, 0);
  }
  {
    OpTester t = Fill(input, {-1}, DataType::kBool);
    t.Attr("value", 1.0f);
    t.Run();
    ExpectTensorNear(t.GetOutput("Out"), MakeTensor<bool>({2}, {true, true}), 0,
                     0);
  }
  {
    OpTester t = Fill(input, {-1}, DataType::kFloat16);
    t.Attr("str_value", std::string("-inf"));
    t.Run();
    const Tensor& out = t.GetOutput("Out");
    ASSERT_EQ(out.dtype(), DataType::kFloat16);
    EXPECT_EQ(out.data<platform::float16>()[1].bits, 0xfc00);  // -inf
  }
  {
    OpTester t = Fill(input, {-1}, DataType::kInt32);
    t.Attr("str_value", std::string("nan"));
    t.Run();  // integer outputs get 0 for inf and nan
    EXPECT_EQ(ToVector<int32_t>(t.GetOutput("Out")),
              (std::vector<int32_t>{0, 0}));
  }
}

TEST(FillConstantBatchSizeLikeOp, EmptyBatch) {
  OpTester t = Fill(MakeTensor<float>({0, 3}, {}), {-1, 13});
  t.Run();
  EXPECT_EQ(t.GetOutput("Out").dims(), (DDim{0, 13}));
  OpTester e = Fill(MakeTensor<float>({0, 1}, {}, {{0}}), {-1, 2});
  e.Run();  // a LoD with no sequence
  EXPECT_EQ(e.GetOutput("Out").dims(), (DDim{0, 2}));
}

TEST(FillConstantBatchSizeLikeOp, Errors) {
  Tensor input = RandomTensor<float>({2, 3});
  ExpectError(
      [&] {
        OpTester t = Fill(input, {-1, 2});
        t.Attr("input_dim_idx", 2);
        t.Run();
      },
      ErrorCode::kInvalidArgument,
      {"fill_constant_batch_size_like", "input_dim_idx 2", "[2, 3]"});
  ExpectError(
      [&] {
        OpTester t = Fill(input, {-1, 2});
        t.Attr("output_dim_idx", 2);
        t.Run();
      },
      ErrorCode::kInvalidArgument,
      {"fill_constant_batch_size_like", "output_dim_idx 2", "[-1, 2]"});
  ExpectError(
      [&] {
        OpTester t = Fill(input, {-1, -1});
        t.Run();
      },
      ErrorCode::kInvalidArgument,
      {"fill_constant_batch_size_like", "[-1, -1]", "negative dim -1 at 1"});
  ExpectError(
      [&] {
        OpTester t = Fill(input, {-1});
        t.Attr("str_value", std::string("ten"));
        t.Run();
      },
      ErrorCode::kInvalidArgument, {"fill_constant_batch_size_like", "'ten'"});
  ExpectError(
      [&] {
        OpTester t("fill_constant_batch_size_like");
        t.Input("Input", input)
            .Output("Out")
            .Attr("shape", std::vector<int32_t>{-1})
            .Attr("dtype", 99);
        t.Run();
      },
      ErrorCode::kInvalidArgument,
      {"fill_constant_batch_size_like", "dtype 99"});
  ExpectError(
      [&] {
        OpTester t("fill_constant_batch_size_like");
        t.Input("Input", input).Output("Out");
        t.Run();
      },
      ErrorCode::kInvalidArgument, {"shape"});
}

TEST(FillConstantBatchSizeLikeOp, RunAllKernels) {
  OpTester t = Fill(RandomTensor<float>({127, 2}), {-1, 13});
  t.Attr("value", 0.25f);
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
