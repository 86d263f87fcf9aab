#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;
using framework::DDim;
using framework::Tensor;

Tensor Squeeze(const DDim& x_dims,
               const std::vector<int32_t>& axes,
               const framework::LoD& lod = {}) {
  OpTester t("squeeze2");
  t.Input("X", MakeTensor<float>(x_dims, IotaValues(framework::Product(x_dims)),
                                 lod))
      .Output("Out")
      .Attr("axes", axes);
  t.Run();
  return t.GetOutput("Out");
}

TEST(Squeeze2Op, EmptyAxesRemovesEverySizeOneDim) {
  ExpectTensorNear(Squeeze({1, 3, 1, 2}, {}),
                   MakeTensor<float>({3, 2}, IotaValues(6)), 0, 0);
  EXPECT_EQ(Squeeze({1, 1}, {}).dims(), DDim{});  // all ones: 0-D
  EXPECT_EQ(Squeeze({3, 4}, {}).dims(), (DDim{3, 4}));
}

TEST(Squeeze2Op, DefaultAxesAttribute) {
  OpTester t("squeeze2");
  t.Input("X", MakeTensor<float>({2, 1, 3}, IotaValues(6))).Output("Out");
  t.Run();
  EXPECT_EQ(t.GetOutput("Out").dims(), (DDim{2, 3}));
}

TEST(Squeeze2Op, ListedAxes) {
  EXPECT_EQ(Squeeze({1, 3, 1, 2}, {0}).dims(), (DDim{3, 1, 2}));
  EXPECT_EQ(Squeeze({1, 3, 1, 2}, {0, -2}).dims(), (DDim{3, 2}));
  EXPECT_EQ(Squeeze({1, 3, 1, 2}, {2, 2}).dims(), (DDim{1, 3, 2}));
  // 2.x keeps a listed dim whose size is not 1.
  EXPECT_EQ(Squeeze({1, 3, 1, 2}, {1}).dims(), (DDim{1, 3, 1, 2}));
  EXPECT_EQ(Squeeze({1, 1, 1, 1, 1, 13}, {0, 1, 2, 3, 4}).dims(), (DDim{13}));
  EXPECT_EQ(Squeeze({1, 0, 1}, {}).dims(), (DDim{0}));
}

TEST(Squeeze2Op, ZeroDInput) {
  EXPECT_EQ(Squeeze({}, {}).dims(), DDim{});
  EXPECT_EQ(Squeeze({}, {0}).dims(), DDim{});
  EXPECT_EQ(Squeeze({}, {-1}).dims(), DDim{});
}

TEST(Squeeze2Op, LoDKeptOnlyWhenDimZeroUnchanged) {
  const framework::LoD lod = {{0, 1, 3}};
  EXPECT_EQ(Squeeze({3, 1, 2}, {}, lod).lod(), lod);
  EXPECT_TRUE(Squeeze({1, 3}, {}, {{0, 1}}).lod().empty());
}

TEST(Squeeze2Op, BoolData) {
  OpTester t("squeeze2");
  t.Input("X", MakeTensor<bool>({1, 3, 1}, {false, true, true}))
      .Output("Out", DataType::kBool);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<bool>({3}, {false, true, true}), 0, 0);
}

TEST(Squeeze2Op, AxisOutOfRange) {
  ExpectError(
      [] {
        Squeeze({1, 3}, {2});
      },
      ErrorCode::kInvalidArgument, {"squeeze2", "axes = 2", "rank-2"});
  ExpectError(
      [] {
        Squeeze({1, 3}, {-3});
      },
      ErrorCode::kInvalidArgument, {"squeeze2", "-3"});
  ExpectError([] { Squeeze({}, {1}); }, ErrorCode::kInvalidArgument,
              {"squeeze2", "0-D"});
}

TEST(Squeeze2Op, AllKernelsAgree) {
  OpTester t("squeeze2");
  t.Input("X", RandomTensor<float>({1, 13, 1, 127})).Output("Out");
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
