#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;
using framework::DDim;
using framework::Tensor;

Tensor Flatten(const DDim& x_dims,
               int start,
               int stop,
               const framework::LoD& lod = {}) {
  OpTester t("flatten_contiguous_range");
  t.Input("X", MakeTensor<float>(x_dims, IotaValues(framework::Product(x_dims)),
                                 lod))
      .Output("Out")
      .Attr("start_axis", start)
      .Attr("stop_axis", stop);
  t.Run();
  return t.GetOutput("Out");
}

TEST(FlattenContiguousRangeOp, ByHand) {
  ExpectTensorNear(Flatten({2, 3, 4}, 1, 2),
                   MakeTensor<float>({2, 12}, IotaValues(24)), 0, 0);
  EXPECT_EQ(Flatten({2, 3, 4}, 0, -1).dims(), (DDim{24}));
  EXPECT_EQ(Flatten({2, 3, 4}, 0, 1).dims(), (DDim{6, 4}));
  EXPECT_EQ(Flatten({2, 3, 4}, -2, -1).dims(), (DDim{2, 12}));
  EXPECT_EQ(Flatten({2, 3, 4}, 2, 2).dims(), (DDim{2, 3, 4}));
}

TEST(FlattenContiguousRangeOp, DefaultsMergeDimOneOnly) {
  OpTester t("flatten_contiguous_range");
  t.Input("X", MakeTensor<float>({2, 3, 4}, IotaValues(24))).Output("Out");
  t.Run();
  EXPECT_EQ(t.GetOutput("Out").dims(), (DDim{2, 3, 4}));
}

TEST(FlattenContiguousRangeOp, EdgeShapes) {
  EXPECT_EQ(Flatten({}, 0, -1).dims(), (DDim{1}));  // 0-D gives [1]
  EXPECT_EQ(Flatten({1}, 0, 0).dims(), (DDim{1}));
  EXPECT_EQ(Flatten({2, 1, 3, 1, 5, 2}, 1, 4).dims(), (DDim{2, 15, 2}));
  EXPECT_EQ(Flatten({2, 0, 3}, 1, 2).dims(), (DDim{2, 0}));
  EXPECT_EQ(Flatten({13, 127}, 0, 1).dims(), (DDim{13 * 127}));
}

TEST(FlattenContiguousRangeOp, LoDKeptOnlyWhenDimZeroUnchanged) {
  const framework::LoD lod = {{0, 1, 3}};
  EXPECT_EQ(Flatten({3, 2, 2}, 1, 2, lod).lod(), lod);
  EXPECT_TRUE(Flatten({3, 2, 2}, 0, 1, lod).lod().empty());
}

TEST(FlattenContiguousRangeOp, Int64Data) {
  OpTester t("flatten_contiguous_range");
  t.Input("X", MakeTensor<int64_t>({2, 2}, {-1, 2, -3, int64_t(1) << 60}))
      .Output("Out", DataType::kInt64)
      .Attr("start_axis", 0)
      .Attr("stop_axis", -1);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<int64_t>({4}, {-1, 2, -3, int64_t(1) << 60}), 0,
                   0);
}

TEST(FlattenContiguousRangeOp, Errors) {
  ExpectError(
      [] {
        Flatten({2, 3, 4}, 2, 1);
      },
      ErrorCode::kInvalidArgument,
      {"flatten_contiguous_range", "start_axis", "stop_axis", "[2, 3, 4]"});
  ExpectError(
      [] {
        Flatten({2, 3, 4}, 0, 3);
      },
      ErrorCode::kInvalidArgument,
      {"flatten_contiguous_range", "stop_axis = 3"});
  ExpectError(
      [] {
        Flatten({2, 3, 4}, -4, 1);
      },
      ErrorCode::kInvalidArgument,
      {"flatten_contiguous_range", "start_axis = -4"});
}

TEST(FlattenContiguousRangeOp, AllKernelsAgree) {
  OpTester t("flatten_contiguous_range");
  t.Input("X", RandomTensor<float>({13, 3, 127}))
      .Output("Out")
      .Attr("start_axis", 0)
      .Attr("stop_axis", 1);
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
