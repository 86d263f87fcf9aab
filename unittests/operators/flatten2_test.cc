#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;
using framework::DDim;
using framework::Tensor;

// flatten2 of an iota tensor; axis < 0 leaves the attribute out.
Tensor Flatten(const DDim& x_dims, int axis, const framework::LoD& lod = {}) {
  OpTester t("flatten2");
  t.Input("X", MakeTensor<float>(x_dims, IotaValues(framework::Product(x_dims)),
                                 lod))
      .Output("Out");
  if (axis >= 0) t.Attr("axis", axis);
  t.Run();
  return t.GetOutput("Out");
}

TEST(Flatten2Op, DefaultAxisIsOne) {
  ExpectTensorNear(Flatten({2, 3, 4}, -1),
                   MakeTensor<float>({2, 12}, IotaValues(24)), 0, 0);
}

TEST(Flatten2Op, AxisExtremes) {
  EXPECT_EQ(Flatten({2, 3, 4}, 0).dims(), (DDim{1, 24}));
  EXPECT_EQ(Flatten({2, 3, 4}, 2).dims(), (DDim{6, 4}));
  EXPECT_EQ(Flatten({2, 3, 4}, 3).dims(), (DDim{24, 1}));
  EXPECT_EQ(Flatten({1}, 1).dims(), (DDim{1, 1}));
  EXPECT_EQ(Flatten({}, 0).dims(), (DDim{1, 1}));
  EXPECT_EQ(Flatten({2, 1, 3, 1, 5, 2}, 4).dims(), (DDim{6, 10}));
  EXPECT_EQ(Flatten({13, 0, 127}, 1).dims(), (DDim{13, 0}));
}

TEST(Flatten2Op, LoDKeptOnlyWhenDimZeroUnchanged) {
  const framework::LoD lod = {{0, 2, 3}};
  EXPECT_EQ(Flatten({3, 2, 2}, 1, lod).lod(), lod);
  EXPECT_TRUE(Flatten({3, 2, 2}, 0, lod).lod().empty());
}

TEST(Flatten2Op, Int64AndBool) {
  OpTester t("flatten2");
  t.Input("X", MakeTensor<int64_t>({2, 1, 2}, {1, 2, 3, int64_t(1) << 50}))
      .Output("Out", DataType::kInt64);
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<int64_t>({2, 2}, {1, 2, 3, int64_t(1) << 50}), 0,
                   0);
  EXPECT_EQ(ToVector<int64_t>(t.GetOutput("Out"))[3], int64_t(1) << 50);

  OpTester b("flatten2");
  b.Input("X", MakeTensor<bool>({1, 3}, {true, false, true}))
      .Output("Out", DataType::kBool)
      .Attr("axis", 0);
  b.Run();
  ExpectTensorNear(b.GetOutput("Out"),
                   MakeTensor<bool>({1, 3}, {true, false, true}), 0, 0);
}

TEST(Flatten2Op, AxisOutOfRange) {
  ExpectError(
      [] {
        Flatten({2, 3}, 3);
      },
      ErrorCode::kInvalidArgument, {"flatten2", "axis = 3", "[2, 3]"});
  ExpectError(
      [] {
        OpTester t("flatten2");
        t.Input("X", MakeTensor<float>({2, 3}, IotaValues(6)))
            .Output("Out")
            .Attr("axis", -1);
        t.Run();
      },
      ErrorCode::kInvalidArgument, {"flatten2", "axis = -1"});
}

TEST(Flatten2Op, AllKernelsAgree) {
  OpTester t("flatten2");
  t.Input("X", RandomTensor<float>({13, 2, 127})).Output("Out");
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
