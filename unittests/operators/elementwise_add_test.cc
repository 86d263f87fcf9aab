// elementwise_add, and the broadcast rule shared by every elementwise_* op
// (ops.md 6.1).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/elementwise_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;
using framework::Tensor;

auto Add = [](auto a, auto b) { return a + b; };

Tensor RunAdd(const Tensor& x, const Tensor& y, int axis = kNoAxis) {
  OpTester t("elementwise_add");
  t.Input("X", x).Input("Y", y).Output("Out", x.dtype());
  if (axis != kNoAxis) t.Attr("axis", axis);
  t.Run();
  return t.GetOutput("Out");
}

TEST(ElementwiseAddOp, SameShapeByHand) {
  ExpectTensorNear(RunAdd(MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
                          MakeTensor<float>({2, 3}, {10, 20, 30, 40, 50, 60})),
                   MakeTensor<float>({2, 3}, {11, 22, 33, 44, 55, 66}));
}

TEST(ElementwiseAddOp, ChannelVectorAxis1ByHand) {
  // X [1, 2, 2, 2] + Y [2] with axis 1: Y acts as [1, 2, 1, 1].
  ExpectTensorNear(
      RunAdd(MakeTensor<float>({1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}),
             MakeTensor<float>({2}, {100, 200}), 1),
      MakeTensor<float>({1, 2, 2, 2},
                        {100, 101, 102, 103, 204, 205, 206, 207}));
}

TEST(ElementwiseAddOp, TrailingAxisMinus1ByHand) {
  // The same Y with axis -1 is [1, 1, 1, 2]: added along W.
  ExpectTensorNear(
      RunAdd(MakeTensor<float>({1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}),
             MakeTensor<float>({2}, {100, 200}), -1),
      MakeTensor<float>({1, 2, 2, 2},
                        {100, 201, 102, 203, 104, 205, 106, 207}));
}

TEST(ElementwiseAddOp, DefaultAxisIsTrailing) {
  ExpectTensorNear(RunAdd(MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
                          MakeTensor<float>({3}, {10, 20, 30})),
                   MakeTensor<float>({2, 3}, {11, 22, 33, 14, 25, 36}));
}

TEST(ElementwiseAddOp, XSmallerThanYByHand) {
  // X [2] with axis 0 against Y [2, 3]: X acts as [2, 1].
  ExpectTensorNear(RunAdd(MakeTensor<float>({2}, {100, 200}),
                          MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}), 0),
                   MakeTensor<float>({2, 3}, {101, 102, 103, 204, 205, 206}));
}

TEST(ElementwiseAddOp, OnesOnBothSidesByHand) {
  // [2, 1] + [1, 3] -> [2, 3] (an outer sum).
  ExpectTensorNear(RunAdd(MakeTensor<float>({2, 1}, {10, 20}),
                          MakeTensor<float>({1, 3}, {1, 2, 3})),
                   MakeTensor<float>({2, 3}, {11, 12, 13, 21, 22, 23}));
}

TEST(ElementwiseAddOp, BroadcastCasesMatchReference) {
  struct Case {
    framework::DDim x, y;
    int axis;
  };
  const std::vector<Case> cases = {
      {{2, 3, 4, 5}, {3}, 1},            // conv bias
      {{2, 3, 4, 5}, {3, 4}, 1},         // middle block
      {{2, 3, 4, 5}, {3, 4}, -2},        // negative axis: same as 1
      {{2, 3, 4, 5}, {3, 1, 1}, 1},      // Fluid-era [C, 1, 1] bias
      {{2, 3, 4, 5}, {5}, -1},           // trailing
      {{2, 3, 4, 5}, {4, 5}, kNoAxis},   // trailing, axis absent
      {{2, 3, 4, 5}, {2}, 0},            // leading
      {{2, 3, 4, 5}, {2, 3, 1, 1}, -1},  // same rank, per (n, c)
      {{2, 3, 4, 5}, {1, 1, 1, 1}, -1},  // same rank scalar
      {{3}, {2, 3, 4}, 1},               // X is the smaller one
      {{4}, {2, 3, 4}, -1},
      {{3, 1}, {2, 3, 4}, 1},
      {{2, 1, 4}, {1, 3, 1}, -1},  // size-1 dims on both sides
      {{5, 1, 7, 1}, {1, 6, 1, 2}, -1},
      {{1, 6, 1}, {5, 1, 1}, -1},
      {{13, 127}, {127}, -1},  // odd sizes
      {{127, 13}, {127}, 0},
      {{13, 1, 127}, {13, 127, 1}, -1},
      {{2, 3}, {1}, -1},  // scalar-like Y
      {{1}, {2, 3}, -1},
      {{1}, {1}, -1},  // 1 element
      {{}, {}, -1},    // 0-D
      {{}, {3}, -1},
      {{2, 3}, {}, -1},
      {{0, 3}, {3}, -1},  // 0-size dims
      {{2, 0, 4}, {1, 1, 4}, -1},
      {{0}, {1}, -1},
      {{3}, {0, 3}, -1},
  };
  for (const Case& c : cases) {
    CheckElementwise<float>("elementwise_add",
                            RandomTensor<float>(c.x, -5, 5, 1),
                            RandomTensor<float>(c.y, -5, 5, 2), c.axis, Add);
  }
}

TEST(ElementwiseAddOp, OutputShapes) {
  EXPECT_EQ(
      RunAdd(RandomTensor<float>({0, 3}), RandomTensor<float>({3})).dims(),
      framework::DDim({0, 3}));
  EXPECT_EQ(
      RunAdd(RandomTensor<float>({3}), RandomTensor<float>({2, 1, 1})).dims(),
      framework::DDim({2, 1, 3}));
  EXPECT_EQ(RunAdd(RandomTensor<float>({}), RandomTensor<float>({})).dims(),
            framework::DDim({}));
}

TEST(ElementwiseAddOp, ThreadedSplitsMatchReference) {
  // Large enough that the CPU context splits the work across 4 threads,
  // with blocks starting in the middle of rows.
  struct Case {
    framework::DDim x, y;
    int axis;
  };
  const std::vector<Case> cases = {
      {{3, 50, 41, 53}, {50}, 1},
      {{3, 50, 41, 53}, {3, 50, 41, 53}, -1},
      {{3, 1, 41, 53}, {1, 50, 41, 1}, -1},
      {{1, 331013}, {1}, -1},
      {{7}, {7, 211, 223}, 0},
  };
  for (const Case& c : cases) {
    CheckElementwise<float>("elementwise_add",
                            RandomTensor<float>(c.x, -5, 5, 3),
                            RandomTensor<float>(c.y, -5, 5, 4), c.axis, Add,
                            /*threads=*/4);
  }
}

TEST(ElementwiseAddOp, DataTypes) {
  CheckElementwise<double>("elementwise_add",
                           RandomTensor<double>({4, 13}, -5, 5, 1),
                           RandomTensor<double>({13}, -5, 5, 2), -1, Add);
  ExpectTensorNear(RunAdd(MakeTensor<int32_t>({2, 2}, {1, -2, 2147483000, 4}),
                          MakeTensor<int32_t>({2}, {10, 20})),
                   MakeTensor<int32_t>({2, 2}, {11, 18, 2147483010, 24}), 0, 0);
  ExpectTensorNear(RunAdd(MakeTensor<int64_t>({3}, {int64_t{1} << 40, -5, 7}),
                          MakeTensor<int64_t>({1}, {3})),
                   MakeTensor<int64_t>({3}, {(int64_t{1} << 40) + 3, -2, 10}),
                   0, 0);
}

// Signed overflow is undefined in C++; integer elementwise ops wrap around
// in two's complement (as do elementwise_sub and elementwise_mul).
TEST(ElementwiseAddOp, IntegerOverflowWrapsAround) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  ExpectTensorNear(RunAdd(MakeTensor<int32_t>({2}, {kMax, kMin}),
                          MakeTensor<int32_t>({2}, {1, -1})),
                   MakeTensor<int32_t>({2}, {kMin, kMax}), 0, 0);
  constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
  ExpectTensorNear(RunAdd(MakeTensor<int64_t>({1}, {kMax64}),
                          MakeTensor<int64_t>({1}, {kMax64})),
                   MakeTensor<int64_t>({1}, {-2}), 0, 0);
  for (const char* op : {"elementwise_sub", "elementwise_mul"}) {
    OpTester t(op);
    t.Input("X", MakeTensor<int32_t>({2}, {kMin, 1 << 16}))
        .Input("Y", MakeTensor<int32_t>({2}, {1, 1 << 16}))
        .Output("Out", DataType::kInt32);
    t.Run();
    ExpectTensorNear(t.GetOutput("Out"),
                     std::string(op) == "elementwise_sub"
                         ? MakeTensor<int32_t>({2}, {kMax, 0})
                         : MakeTensor<int32_t>({2}, {kMin, 0}),
                     0, 0);
  }
  OpTester sum("sum");
  sum.Inputs("X",
             {MakeTensor<int32_t>({1}, {kMax}),
              MakeTensor<int32_t>({1}, {kMax}), MakeTensor<int32_t>({1}, {2})})
      .Output("Out");
  sum.Run();
  ExpectTensorNear(sum.GetOutput("Out"), MakeTensor<int32_t>({1}, {0}), 0, 0);
}

TEST(ElementwiseAddOp, OutputLoDComesFromX) {
  const framework::LoD lod = {{0, 1, 3}};
  ExpectTensorNear(RunAdd(MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}, lod),
                          MakeTensor<float>({2}, {10, 20})),
                   MakeTensor<float>({3, 2}, {11, 22, 13, 24, 15, 26}, lod));
  // Y's LoD is not propagated.
  ExpectTensorNear(RunAdd(MakeTensor<float>({2}, {10, 20}),
                          MakeTensor<float>({1, 2}, {1, 2}, {{0, 1}})),
                   MakeTensor<float>({1, 2}, {11, 22}));
}

TEST(ElementwiseAddOp, IncompatibleShapesNameBothShapes) {
  ExpectError(
      [] {
        RunAdd(RandomTensor<float>({2, 3}), RandomTensor<float>({4}));
      },
      ErrorCode::kInvalidArgument, {"elementwise_add", "[2, 3]", "[4]"});
  ExpectError(
      [] {
        RunAdd(RandomTensor<float>({2, 3, 4}), RandomTensor<float>({2, 5, 4}));
      },
      ErrorCode::kInvalidArgument,
      {"elementwise_add", "[2, 3, 4]", "[2, 5, 4]"});
  // Conv bias with the wrong axis: Y [3] against W = 5.
  ExpectError(
      [] {
        RunAdd(RandomTensor<float>({2, 3, 4, 5}), RandomTensor<float>({3}), -1);
      },
      ErrorCode::kInvalidArgument, {"elementwise_add", "[2, 3, 4, 5]", "[3]"});
  // 0 only broadcasts against 1.
  ExpectError(
      [] { RunAdd(RandomTensor<float>({0}), RandomTensor<float>({2})); },
      ErrorCode::kInvalidArgument, {"elementwise_add", "[0]", "[2]"});
}

TEST(ElementwiseAddOp, BadAxis) {
  // Out of [-rank, rank).
  ExpectError(
      [] {
        RunAdd(RandomTensor<float>({2, 3, 4}), RandomTensor<float>({3}), 3);
      },
      ErrorCode::kInvalidArgument, {"elementwise_add", "axis 3", "[2, 3, 4]"});
  ExpectError(
      [] {
        RunAdd(RandomTensor<float>({2, 3, 4}), RandomTensor<float>({3}), -4);
      },
      ErrorCode::kInvalidArgument, {"elementwise_add", "axis -4"});
  // In range, but Y [3, 4] does not fit at dim 2 of a rank-3 X.
  ExpectError(
      [] {
        RunAdd(RandomTensor<float>({2, 3, 4}), RandomTensor<float>({3, 4}), 2);
      },
      ErrorCode::kInvalidArgument, {"elementwise_add", "axis 2", "[3, 4]"});
  // Same rank, different shapes: only -1 and 0 are meaningful.
  ExpectError(
      [] {
        RunAdd(RandomTensor<float>({2, 3}), RandomTensor<float>({1, 3}), 1);
      },
      ErrorCode::kInvalidArgument, {"elementwise_add", "axis", "[1, 3]"});
  // Equal shapes ignore the axis, as in Paddle.
  ExpectTensorNear(
      RunAdd(MakeTensor<float>({2}, {1, 2}), MakeTensor<float>({2}, {3, 4}), 1),
      MakeTensor<float>({2}, {4, 6}));
}

TEST(ElementwiseAddOp, MixedDataTypesAreRejected) {
  ExpectError(
      [] {
        RunAdd(RandomTensor<float>({2, 3}),
               MakeTensor<int32_t>({3}, {1, 2, 3}));
      },
      ErrorCode::kInvalidArgument, {"elementwise_add", "float32", "int32"});
}

TEST(ElementwiseAddOp, AllKernelsAgree) {
  OpTester t("elementwise_add");
  t.Input("X", RandomTensor<float>({2, 3, 13, 7}))
      .Input("Y", RandomTensor<float>({3}, -1, 1, 2))
      .Attr("axis", 1)
      .Output("Out");
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
