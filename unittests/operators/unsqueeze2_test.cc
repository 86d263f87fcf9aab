#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;
using framework::DDim;
using framework::Tensor;

Tensor Unsqueeze(const DDim& x_dims,
                 const std::vector<int32_t>& axes,
                 const framework::LoD& lod = {}) {
  OpTester t("unsqueeze2");
  t.Input("X", MakeTensor<float>(x_dims, IotaValues(framework::Product(x_dims)),
                                 lod))
      .Output("Out")
      .Attr("axes", axes);
  t.Run();
  return t.GetOutput("Out");
}

TEST(Unsqueeze2Op, ByHand) {
  ExpectTensorNear(Unsqueeze({3, 4}, {0, 2}),
                   MakeTensor<float>({1, 3, 1, 4}, IotaValues(12)), 0, 0);
}

TEST(Unsqueeze2Op, AxesApplyOneAtATime) {
  EXPECT_EQ(Unsqueeze({3, 4}, {-1}).dims(), (DDim{3, 4, 1}));
  EXPECT_EQ(Unsqueeze({3, 4}, {1, 1}).dims(), (DDim{3, 1, 1, 4}));
  EXPECT_EQ(Unsqueeze({3, 4}, {2, 0}).dims(), (DDim{1, 3, 4, 1}));
  // -1 counts against the rank after the first insert (3): position 3.
  EXPECT_EQ(Unsqueeze({3, 4}, {0, -1}).dims(), (DDim{1, 3, 4, 1}));
  EXPECT_EQ(Unsqueeze({3, 4}, {2, 3}).dims(), (DDim{3, 4, 1, 1}));
  EXPECT_EQ(Unsqueeze({2}, {0, 0, 0, 0, 0}).dims(), (DDim{1, 1, 1, 1, 1, 2}));
}

TEST(Unsqueeze2Op, EdgeShapes) {
  EXPECT_EQ(Unsqueeze({}, {0}).dims(), (DDim{1}));
  EXPECT_EQ(Unsqueeze({}, {-1}).dims(), (DDim{1}));
  EXPECT_EQ(Unsqueeze({0, 5}, {1}).dims(), (DDim{0, 1, 5}));
  EXPECT_EQ(Unsqueeze({3, 4}, {}).dims(), (DDim{3, 4}));
}

TEST(Unsqueeze2Op, AxesTensorWinsOverListAndAttribute) {
  OpTester t("unsqueeze2");
  t.Input("X", MakeTensor<float>({3, 4}, IotaValues(12)))
      .Input("AxesTensor", MakeTensor<int64_t>({2}, {1, -1}))
      .Inputs("AxesTensorList", {MakeTensor<int32_t>({1}, {0})})
      .Output("Out")
      .Attr("axes", std::vector<int32_t>{2});
  t.Run();
  EXPECT_EQ(t.GetOutput("Out").dims(), (DDim{3, 1, 4, 1}));
}

TEST(Unsqueeze2Op, AxesTensorListWinsOverAttribute) {
  OpTester t("unsqueeze2");
  t.Input("X", MakeTensor<float>({3, 4}, IotaValues(12)))
      .Inputs("AxesTensorList",
              {MakeTensor<int32_t>({1}, {0}), MakeTensor<int64_t>({1}, {3})})
      .Output("Out")
      .Attr("axes", std::vector<int32_t>{2});
  t.Run();
  EXPECT_EQ(t.GetOutput("Out").dims(), (DDim{1, 3, 4, 1}));
}

TEST(Unsqueeze2Op, LoDKeptOnlyWhenDimZeroUnchanged) {
  const framework::LoD lod = {{0, 2, 3}};
  EXPECT_EQ(Unsqueeze({3, 2}, {1}, lod).lod(), lod);
  EXPECT_TRUE(Unsqueeze({3, 2}, {0}, lod).lod().empty());
}

TEST(Unsqueeze2Op, Int64Data) {
  OpTester t("unsqueeze2");
  t.Input("X", MakeTensor<int64_t>({2}, {int64_t(1) << 62, -7}))
      .Output("Out", DataType::kInt64)
      .Attr("axes", std::vector<int32_t>{0});
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<int64_t>({1, 2}, {int64_t(1) << 62, -7}), 0, 0);
}

TEST(Unsqueeze2Op, AxisOutOfRange) {
  ExpectError(
      [] {
        Unsqueeze({3, 4}, {3});
      },
      ErrorCode::kInvalidArgument, {"unsqueeze2", "axis 3", "[3, 4]"});
  ExpectError(
      [] {
        Unsqueeze({3, 4}, {-4});
      },
      ErrorCode::kInvalidArgument, {"unsqueeze2", "axis -4"});
  ExpectError(
      [] {
        OpTester t("unsqueeze2");
        t.Input("X", MakeTensor<float>({3}, IotaValues(3)))
            .Inputs("AxesTensorList", {MakeTensor<int32_t>({2}, {0, 1})})
            .Output("Out");
        t.Run();
      },
      ErrorCode::kInvalidArgument, {"unsqueeze2", "AxesTensorList"});
}

TEST(Unsqueeze2Op, AllKernelsAgree) {
  OpTester t("unsqueeze2");
  t.Input("X", RandomTensor<float>({13, 127}))
      .Output("Out")
      .Attr("axes", std::vector<int32_t>{1});
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
