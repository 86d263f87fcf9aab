#include <climits>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;
using framework::DDim;
using framework::Tensor;

// Naive reference: `begin` and `size` per dim of x (already resolved).
template <typename T>
Tensor ReferenceBlock(const Tensor& x,
                      const std::vector<int64_t>& begin,
                      const DDim& size) {
  const DDim& xd = x.dims();
  const int rank = static_cast<int>(xd.size());
  std::vector<T> in = ToVector<T>(x);
  std::vector<T> out(static_cast<size_t>(framework::Product(size)));
  std::vector<int64_t> idx(rank);
  for (size_t n = 0; n < out.size(); ++n) {
    int64_t rest = static_cast<int64_t>(n);
    for (int d = rank - 1; d >= 0; --d) {
      idx[d] = rest % size[d];
      rest /= size[d];
    }
    int64_t off = 0;
    for (int d = 0; d < rank; ++d) off = off * xd[d] + idx[d] + begin[d];
    out[n] = in[off];
  }
  return MakeTensor<T>(size, out);
}

struct SliceArgs {
  std::vector<int32_t> axes, starts, ends;
  std::vector<int32_t> decrease_axis = {};
  std::vector<int32_t> infer_flags = {};
};

Tensor Slice(const Tensor& x,
             const SliceArgs& a,
             DataType dtype = DataType::kFloat32) {
  OpTester t("slice");
  t.Input("Input", x)
      .Output("Out", dtype)
      .Attr("axes", a.axes)
      .Attr("starts", a.starts)
      .Attr("ends", a.ends)
      .Attr("decrease_axis", a.decrease_axis)
      .Attr("infer_flags", a.infer_flags);
  t.Run();
  return t.GetOutput("Out");
}

TEST(SliceOp, ByHand) {
  Tensor x = MakeTensor<float>({3, 4}, IotaValues(12));
  ExpectTensorNear(Slice(x, {{0, 1}, {1, 1}, {3, 3}}),
                   MakeTensor<float>({2, 2}, {5, 6, 9, 10}), 0, 0);
}

TEST(SliceOp, MatchesReference) {
  Tensor x = RandomTensor<float>({4, 13, 7});
  ExpectTensorNear(Slice(x, {{1}, {2}, {11}}),
                   ReferenceBlock<float>(x, {0, 2, 0}, {4, 9, 7}), 0, 0);
  ExpectTensorNear(Slice(x, {{0, 2}, {1, 3}, {3, 6}}),
                   ReferenceBlock<float>(x, {1, 0, 3}, {2, 13, 3}), 0, 0);
  ExpectTensorNear(Slice(x, {{2}, {0}, {7}}), x, 0, 0);
  Tensor y = RandomTensor<float>({2, 3, 2, 4, 1, 5});
  ExpectTensorNear(
      Slice(y, {{1, 3, 5}, {1, 1, 2}, {3, 3, 4}}),
      ReferenceBlock<float>(y, {0, 1, 0, 1, 0, 2}, {2, 2, 2, 2, 1, 2}), 0, 0);
}

TEST(SliceOp, NegativeAndClampedBounds) {
  Tensor x = MakeTensor<float>({6}, IotaValues(6));
  ExpectTensorNear(Slice(x, {{0}, {-3}, {-1}}), MakeTensor<float>({2}, {3, 4}),
                   0, 0);
  ExpectTensorNear(Slice(x, {{0}, {-100}, {2}}), MakeTensor<float>({2}, {0, 1}),
                   0, 0);
  ExpectTensorNear(Slice(x, {{0}, {4}, {INT32_MAX}}),
                   MakeTensor<float>({2}, {4, 5}), 0, 0);
  EXPECT_EQ(Slice(x, {{0}, {7}, {9}}).dims(), (DDim{0}));
  EXPECT_EQ(Slice(x, {{0}, {2}, {2}}).dims(), (DDim{0}));
  // INT64_MAX, as 2.x front ends write it, clamps the same way.
  OpTester t("slice");
  t.Input("Input", x)
      .Output("Out")
      .Attr("axes", std::vector<int64_t>{0})
      .Attr("starts", std::vector<int64_t>{1})
      .Attr("ends", std::vector<int64_t>{INT64_MAX});
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({5}, {1, 2, 3, 4, 5}),
                   0, 0);
}

TEST(SliceOp, DecreaseAxis) {
  Tensor x = MakeTensor<float>({3, 4}, IotaValues(12));
  ExpectTensorNear(Slice(x, {{0}, {1}, {2}, {0}}),
                   MakeTensor<float>({4}, {4, 5, 6, 7}), 0, 0);
  ExpectTensorNear(Slice(x, {{1}, {-1}, {4}, {1}}),
                   MakeTensor<float>({3}, {3, 7, 11}), 0, 0);
  // Every dim decreased: [1] (what <= 2.4 files expect), not 0-D.
  ExpectTensorNear(Slice(x, {{0, 1}, {2, 3}, {3, 4}, {0, 1}}),
                   MakeTensor<float>({1}, {11}), 0, 0);
}

TEST(SliceOp, MinusOneStartWithZeroEndTakesLastElement) {
  Tensor x = MakeTensor<float>({3, 2}, IotaValues(6));
  // x[-1]: start -1, end 0, end left to run time (infer_flags -1).
  ExpectTensorNear(Slice(x, {{0}, {-1}, {0}, {0}, {-1}}),
                   MakeTensor<float>({2}, {4, 5}), 0, 0);
  // Without the flag, [-1, 0) has its end before its start: an empty
  // range (as Paddle 3 and Python), so decreasing it is an error.
  ExpectError(
      [&] {
        Slice(x, {{0}, {-1}, {0}, {0}, {1}});
      },
      ErrorCode::kInvalidArgument, {"slice", "decrease_axis", "is 0, not 1"});
  EXPECT_EQ(Slice(x, {{0}, {-1}, {0}, {}, {-1}}).dims(),
            (framework::DDim{0, 2}));
}

TEST(SliceOp, EndBeforeStartIsEmpty) {
  Tensor x = MakeTensor<float>({5, 2}, IotaValues(10));
  EXPECT_EQ(Slice(x, {{0}, {3}, {1}}).dims(), (framework::DDim{0, 2}));
  // After negative indices are made positive: 4 down to 1.
  EXPECT_EQ(Slice(x, {{0}, {-1}, {-4}}).dims(), (framework::DDim{0, 2}));
  // From tensors, at run time.
  OpTester t("slice");
  t.Input("Input", x)
      .Input("StartsTensor", MakeTensor<int64_t>({1}, {4}))
      .Input("EndsTensor", MakeTensor<int64_t>({1}, {2}))
      .Output("Out")
      .Attr("axes", std::vector<int32_t>{0})
      .Attr("starts", std::vector<int32_t>{0})
      .Attr("ends", std::vector<int32_t>{1})
      .Attr("infer_flags", std::vector<int32_t>{-1});
  t.RunAllKernels();
  EXPECT_EQ(t.GetOutput("Out").dims(), (framework::DDim{0, 2}));
}

TEST(SliceOp, TensorInputPriorities) {
  Tensor x = MakeTensor<float>({8}, IotaValues(8));
  {
    OpTester t("slice");  // StartsTensor > StartsTensorList > attribute
    t.Input("Input", x)
        .Input("StartsTensor", MakeTensor<int64_t>({1}, {2}))
        .Inputs("StartsTensorList", {MakeTensor<int32_t>({1}, {5})})
        .Output("Out")
        .Attr("axes", std::vector<int32_t>{0})
        .Attr("starts", std::vector<int32_t>{6})
        .Attr("ends", std::vector<int32_t>{4})
        .Attr("infer_flags", std::vector<int32_t>{-1});
    t.Run();
    ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({2}, {2, 3}), 0, 0);
  }
  {
    OpTester t("slice");  // StartsTensorList > attribute; EndsTensor too
    t.Input("Input", x)
        .Inputs("StartsTensorList", {MakeTensor<int32_t>({1}, {5})})
        .Input("EndsTensor", MakeTensor<int32_t>({1}, {-1}))
        .Output("Out")
        .Attr("axes", std::vector<int32_t>{0})
        .Attr("starts", std::vector<int32_t>{0})
        .Attr("ends", std::vector<int32_t>{1});
    t.Run();
    ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({2}, {5, 6}), 0, 0);
  }
  {
    OpTester t("slice");  // EndsTensor > EndsTensorList
    t.Input("Input", x)
        .Input("EndsTensor", MakeTensor<int64_t>({1}, {3}))
        .Inputs("EndsTensorList", {MakeTensor<int64_t>({1}, {7})})
        .Output("Out")
        .Attr("axes", std::vector<int32_t>{0})
        .Attr("starts", std::vector<int32_t>{1});
    t.Run();
    ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({2}, {1, 2}), 0, 0);
  }
}

TEST(SliceOp, ZeroSizeDims) {
  Tensor x = MakeTensor<float>({0, 3}, {});
  EXPECT_EQ(Slice(x, {{0, 1}, {-1, 1}, {5, 2}}).dims(), (DDim{0, 1}));
}

TEST(SliceOp, IntAndBoolData) {
  ExpectTensorNear(Slice(MakeTensor<int64_t>({4}, {1, int64_t(1) << 50, 3, 4}),
                         {{0}, {1}, {3}}, DataType::kInt64),
                   MakeTensor<int64_t>({2}, {int64_t(1) << 50, 3}), 0, 0);
  ExpectTensorNear(Slice(MakeTensor<bool>({2, 2}, {true, false, false, true}),
                         {{1}, {1}, {2}}, DataType::kBool),
                   MakeTensor<bool>({2, 1}, {false, true}), 0, 0);
}

TEST(SliceOp, LoDKeptOnlyWhenRowsAreNotSliced) {
  const framework::LoD lod = {{0, 1, 3}};
  Tensor x = MakeTensor<float>({3, 4}, IotaValues(12), lod);
  EXPECT_EQ(Slice(x, {{1}, {1}, {3}}).lod(), lod);
  EXPECT_TRUE(Slice(x, {{0}, {1}, {3}}).lod().empty());
}

TEST(SliceOp, MultiThreaded) {
  Tensor x = RandomTensor<float>({127, 13, 3});
  OpTester t("slice");
  t.Input("Input", x)
      .Output("Out")
      .Attr("axes", std::vector<int32_t>{0, 1})
      .Attr("starts", std::vector<int32_t>{3, 1})
      .Attr("ends", std::vector<int32_t>{120, -1});
  t.Run(framework::LibraryType::Plain(), /*threads=*/2);
  ExpectTensorNear(t.GetOutput("Out"),
                   ReferenceBlock<float>(x, {3, 1, 0}, {117, 11, 3}), 0, 0);
}

TEST(SliceOp, Errors) {
  Tensor x = MakeTensor<float>({3, 4}, IotaValues(12));
  ExpectError(
      [&] {
        Slice(x, {{0}, {0}, {2}, {0}});
      },
      ErrorCode::kInvalidArgument,
      {"slice", "decrease_axis", "[3, 4]", "is 2"});
  ExpectError(
      [&] {
        Slice(x, {{2}, {0}, {1}});
      },
      ErrorCode::kInvalidArgument, {"slice", "axes = 2", "rank-2"});
  ExpectError(
      [&] {
        Slice(x, {{0, 1}, {0}, {1, 1}});
      },
      ErrorCode::kInvalidArgument,
      {"slice", "[0, 1]", "starts [0]", "same length"});
}

TEST(SliceOp, AllKernelsAgree) {
  OpTester t("slice");
  t.Input("Input", RandomTensor<float>({13, 127}))
      .Output("Out")
      .Attr("axes", std::vector<int32_t>{1})
      .Attr("starts", std::vector<int32_t>{5})
      .Attr("ends", std::vector<int32_t>{-5});
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
