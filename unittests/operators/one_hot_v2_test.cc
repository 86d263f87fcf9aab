#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;

TEST(OneHotV2Op, AppendsDepthAxisAsFloat) {
  OpTester t("one_hot_v2");
  t.Input("X", MakeTensor<int64_t>({2, 2}, {0, 2, 1, 0}))
      .Output("Out")
      .Attr("depth", 3);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({2, 2, 3}, {1, 0, 0, 0, 0, 1,  //
                                                 0, 1, 0, 1, 0, 0}));
}

TEST(OneHotV2Op, DepthTensorOverridesAttribute) {
  OpTester t("one_hot_v2");
  t.Input("X", MakeTensor<int32_t>({3}, {3, 0, 1}))
      .Input("depth_tensor", MakeTensor<int32_t>({1}, {4}))
      .Output("Out")
      .Attr("depth", 2);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({3, 4}, {0, 0, 0, 1, 1, 0, 0, 0,  //
                                              0, 1, 0, 0}));
}

TEST(OneHotV2Op, OutOfRangeIsAnError) {
  for (int64_t bad : {3, -1}) {
    OpTester t("one_hot_v2");
    t.Input("X", MakeTensor<int64_t>({2}, {1, bad}))
        .Output("Out")
        .Attr("depth", 3);
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"one_hot_v2", "element 1 is " + std::to_string(bad), "[0, 3)",
                 "allow_out_of_range"});
  }
}

TEST(OneHotV2Op, AllowOutOfRangeGivesZeroRows) {
  OpTester t("one_hot_v2");
  t.Input("X", MakeTensor<int64_t>({3}, {5, 1, -2}))
      .Output("Out")
      .Attr("depth", 2)
      .Attr("allow_out_of_range", true);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({3, 2}, {0, 0, 0, 1, 0, 0}));
}

TEST(OneHotV2Op, DtypeAttributeAndEmptyInput) {
  OpTester t("one_hot_v2");
  t.Input("X", MakeTensor<int32_t>({1}, {1}))
      .Output("Out", DataType::kFloat64)
      .Attr("depth", 2)
      .Attr("dtype", 6);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<double>({1, 2}, {0, 1}));

  OpTester e("one_hot_v2");
  e.Input("X", MakeTensor<int64_t>({0}, {})).Output("Out").Attr("depth", 4);
  e.Run();
  EXPECT_EQ(e.GetOutput("Out").dims(), (framework::DDim{0, 4}));
}

TEST(OneHotV2Op, RunAllKernels) {
  OpTester t("one_hot_v2");
  t.Input("X", MakeTensor<int64_t>({2, 3}, {0, 1, 2, 3, 4, 12}))
      .Output("Out")
      .Attr("depth", 13);
  t.RunAllKernels();
}

TEST(OneHotV2Op, Errors) {
  {
    OpTester t("one_hot_v2");
    t.Input("X", MakeTensor<int64_t>({2}, {0, 1})).Output("Out");
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"one_hot_v2", "depth is -1", "[2]"});
  }
  {
    OpTester t("one_hot_v2");
    t.Input("X", MakeTensor<int64_t>({2}, {0, 1}))
        .Output("Out")
        .Attr("depth", 2)
        .Attr("dtype", 0);
    ExpectError([&] { t.Run(); }, ErrorCode::kUnimplemented,
                {"one_hot_v2", "dtype 0"});
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
