#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;
using framework::DDim;
using framework::Tensor;

// Runs reshape2 on an iota tensor of x_dims with the attribute `shape`.
Tensor Reshape(const DDim& x_dims, const std::vector<int32_t>& shape) {
  OpTester t("reshape2");
  t.Input("X",
          MakeTensor<float>(x_dims, IotaValues(framework::Product(x_dims))))
      .Output("Out")
      .Attr("shape", shape);
  t.Run();
  return t.GetOutput("Out");
}

TEST(Reshape2Op, ByHand) {
  ExpectTensorNear(Reshape({2, 3}, {3, 2}),
                   MakeTensor<float>({3, 2}, {0, 1, 2, 3, 4, 5}), 0, 0);
}

TEST(Reshape2Op, ZeroCopiesAndMinusOneInfers) {
  EXPECT_EQ(Reshape({2, 3, 4}, {0, -1}).dims(), (DDim{2, 12}));
  EXPECT_EQ(Reshape({2, 3, 4}, {-1, 0, 2}).dims(), (DDim{4, 3, 2}));
  EXPECT_EQ(Reshape({2, 3, 4}, {0, 0, 0}).dims(), (DDim{2, 3, 4}));
  EXPECT_EQ(Reshape({13}, {-1}).dims(), (DDim{13}));
  ExpectTensorNear(Reshape({2, 3, 4}, {-1}),
                   MakeTensor<float>({24}, IotaValues(24)), 0, 0);
}

TEST(Reshape2Op, OneElementAndZeroD) {
  EXPECT_EQ(Reshape({1}, {1, 1, 1}).dims(), (DDim{1, 1, 1}));
  EXPECT_EQ(Reshape({1, 1}, {}).dims(), DDim{});  // shape [] -> 0-D
  EXPECT_EQ(Reshape({}, {-1}).dims(), (DDim{1}));
}

TEST(Reshape2Op, DefaultShapeAttributeIsEmpty) {
  OpTester t("reshape2");
  t.Input("X", MakeTensor<float>({1, 1}, {7})).Output("Out");
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({}, {7}), 0, 0);
}

TEST(Reshape2Op, RankSix) {
  ExpectTensorNear(Reshape({2, 3, 4}, {1, 2, 1, 3, 2, 2}),
                   MakeTensor<float>({1, 2, 1, 3, 2, 2}, IotaValues(24)), 0, 0);
  EXPECT_EQ(Reshape({1, 2, 1, 3, 2, 2}, {0, 0, 0, -1}).dims(),
            (DDim{1, 2, 1, 12}));
}

TEST(Reshape2Op, ZeroSizeInput) {
  EXPECT_EQ(Reshape({0, 3, 4}, {0, -1}).dims(), (DDim{0, 12}));
  EXPECT_EQ(Reshape({0, 4}, {-1, 2}).dims(), (DDim{0, 2}));
  EXPECT_EQ(Reshape({2, 0, 3}, {-1, 3}).dims(), (DDim{0, 3}));
  // Another target dim is 0, so -1 is ambiguous: zero dims pair with zero
  // dims and -1 takes the rest.
  EXPECT_EQ(Reshape({2, 0, 3}, {0, 0, -1}).dims(), (DDim{2, 0, 3}));
  ExpectError(
      [] {
        Reshape({2, 0}, {0, 5});
      },
      ErrorCode::kInvalidArgument, {"reshape2", "[2, 0]", "[0, 5]"});
}

TEST(Reshape2Op, Int64AndBoolData) {
  OpTester t("reshape2");
  t.Input("X", MakeTensor<int64_t>({2, 3}, {1, -2, 3, int64_t(1) << 40, 5, 6}))
      .Output("Out", DataType::kInt64)
      .Attr("shape", std::vector<int32_t>{3, -1});
  t.Run();
  ExpectTensorNear(
      t.GetOutput("Out"),
      MakeTensor<int64_t>({3, 2}, {1, -2, 3, int64_t(1) << 40, 5, 6}), 0, 0);
  EXPECT_EQ(ToVector<int64_t>(t.GetOutput("Out"))[3], int64_t(1) << 40);

  OpTester b("reshape2");
  b.Input("X", MakeTensor<bool>({4}, {true, false, false, true}))
      .Output("Out", DataType::kBool)
      .Attr("shape", std::vector<int32_t>{2, 2});
  b.Run();
  ExpectTensorNear(b.GetOutput("Out"),
                   MakeTensor<bool>({2, 2}, {true, false, false, true}), 0, 0);
}

TEST(Reshape2Op, ShapeTensorWinsOverShapeAndAttribute) {
  OpTester t("reshape2");
  t.Input("X", MakeTensor<float>({2, 12}, IotaValues(24)))
      .Input("Shape", MakeTensor<int32_t>({2}, {3, 8}))
      .Inputs("ShapeTensor",
              {MakeTensor<int32_t>({1}, {4}), MakeTensor<int64_t>({1}, {-1})})
      .Output("Out")
      .Attr("shape", std::vector<int32_t>{-1, 1});
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({4, 6}, IotaValues(24)), 0, 0);
}

TEST(Reshape2Op, ShapeWinsOverAttribute) {
  for (bool use_int64 : {false, true}) {
    OpTester t("reshape2");
    t.Input("X", MakeTensor<float>({2, 12}, IotaValues(24)))
        .Input("Shape", use_int64 ? MakeTensor<int64_t>({3}, {0, 3, -1})
                                  : MakeTensor<int32_t>({3}, {0, 3, -1}))
        .Output("Out")
        .Attr("shape", std::vector<int32_t>{-1, 1});
    t.Run();
    EXPECT_EQ(t.GetOutput("Out").dims(), (DDim{2, 3, 4}));
  }
}

TEST(Reshape2Op, LoDKeptOnlyWhenDimZeroUnchanged) {
  const framework::LoD lod = {{0, 1, 4}};
  OpTester keep("reshape2");
  keep.Input("X", MakeTensor<float>({4, 2}, IotaValues(8), lod))
      .Output("Out")
      .Attr("shape", std::vector<int32_t>{4, 1, 2});
  keep.Run();
  ExpectTensorNear(keep.GetOutput("Out"),
                   MakeTensor<float>({4, 1, 2}, IotaValues(8), lod), 0, 0);

  OpTester drop("reshape2");
  drop.Input("X", MakeTensor<float>({4, 2}, IotaValues(8), lod))
      .Output("Out")
      .Attr("shape", std::vector<int32_t>{2, 4});
  drop.Run();
  EXPECT_TRUE(drop.GetOutput("Out").lod().empty());
}

TEST(Reshape2Op, InPlace) {
  OpTester t("reshape2");
  t.Input("X", MakeTensor<float>({2, 3}, IotaValues(6)))
      .Output("Out")
      .AliasOutputToInput("Out", "X")
      .Attr("shape", std::vector<int32_t>{3, 2});
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({3, 2}, IotaValues(6)),
                   0, 0);
}

TEST(Reshape2Op, Errors) {
  auto run = [](DDim x_dims, std::vector<int32_t> shape) {
    return [=] { Reshape(x_dims, shape); };
  };
  ExpectError(run({2, 3}, {4, 2}), ErrorCode::kInvalidArgument,
              {"reshape2", "[2, 3]", "[4, 2]"});
  ExpectError(run({2, 3}, {-1, 4}), ErrorCode::kInvalidArgument,
              {"reshape2", "[2, 3]", "[-1, 4]", "divisible"});
  ExpectError(run({2, 3}, {-1, -1}), ErrorCode::kInvalidArgument,
              {"reshape2", "only one", "-1"});
  ExpectError(run({6}, {2, 0}), ErrorCode::kInvalidArgument,
              {"reshape2", "shape[1] = 0", "[6]"});
  ExpectError(run({6}, {-2, -3}), ErrorCode::kInvalidArgument,
              {"reshape2", "-2"});
  ExpectError(
      [] {
        OpTester t("reshape2");
        t.Input("X", MakeTensor<float>({2, 3}, IotaValues(6)))
            .Input("Shape", MakeTensor<float>({2}, {3, 2}))
            .Output("Out");
        t.Run();
      },
      ErrorCode::kInvalidArgument, {"reshape2", "Shape", "int32 or int64"});
}

TEST(Reshape2Op, AllKernelsAgree) {
  OpTester t("reshape2");
  t.Input("X", RandomTensor<float>({3, 13, 127}))
      .Output("Out")
      .Attr("shape", std::vector<int32_t>{-1, 127});
  t.RunAllKernels();
  EXPECT_EQ(t.GetOutput("Out").dims(), (DDim{39, 127}));
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
