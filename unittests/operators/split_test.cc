#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;
using framework::DDim;
using framework::Tensor;

// Naive reference: part p holds indices [begin_p, begin_p + size_p) of
// `axis` (non-negative).
template <typename T>
std::vector<Tensor> ReferenceSplit(const Tensor& x,
                                   int axis,
                                   const std::vector<int64_t>& sizes) {
  const DDim& xd = x.dims();
  const int64_t outer = framework::Product(xd, 0, axis);
  const int64_t inner =
      framework::Product(xd, axis + 1, static_cast<int>(xd.size()));
  std::vector<T> in = ToVector<T>(x);
  std::vector<Tensor> parts;
  int64_t begin = 0;
  for (int64_t size : sizes) {
    DDim pd = xd;
    pd[axis] = size;
    std::vector<T> v;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t k = begin; k < begin + size; ++k) {
        for (int64_t i = 0; i < inner; ++i) {
          v.push_back(in[(o * xd[axis] + k) * inner + i]);
        }
      }
    }
    parts.push_back(MakeTensor<T>(pd, v));
    begin += size;
  }
  return parts;
}

void ExpectParts(const OpTester& t, const std::vector<Tensor>& expected) {
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE("part " + std::to_string(i));
    ExpectTensorNear(t.GetOutput("Out", i), expected[i], 0, 0);
  }
}

TEST(SplitOp, ByHand) {
  OpTester t("split");
  t.Input("X", MakeTensor<float>({2, 3}, IotaValues(6)))
      .Output("Out", DataType::kFloat32, 3)
      .Attr("axis", 1)
      .Attr("num", 3);
  t.Run();
  ExpectParts(
      t, {MakeTensor<float>({2, 1}, {0, 3}), MakeTensor<float>({2, 1}, {1, 4}),
          MakeTensor<float>({2, 1}, {2, 5})});
}

TEST(SplitOp, NumMatchesReference) {
  Tensor x = RandomTensor<float>({4, 6, 13});
  for (int axis : {0, 1, -2}) {
    OpTester t("split");
    t.Input("X", x)
        .Output("Out", DataType::kFloat32, 2)
        .Attr("axis", axis)
        .Attr("num", 2);
    t.Run();
    const int a = axis < 0 ? axis + 3 : axis;
    ExpectParts(
        t, ReferenceSplit<float>(x, a, {x.dims()[a] / 2, x.dims()[a] / 2}));
  }
}

TEST(SplitOp, SectionsWithMinusOne) {
  Tensor x = RandomTensor<float>({2, 7, 3});
  OpTester t("split");
  t.Input("X", x)
      .Output("Out", DataType::kFloat32, 3)
      .Attr("axis", 1)
      .Attr("sections", std::vector<int32_t>{2, -1, 1});
  t.Run();
  ExpectParts(t, ReferenceSplit<float>(x, 1, {2, 4, 1}));
}

TEST(SplitOp, DefaultsSplitAxisZeroBySections) {
  Tensor x = RandomTensor<float>({5, 2});
  OpTester t("split");
  t.Input("X", x)
      .Output("Out", DataType::kFloat32, 2)
      .Attr("sections", std::vector<int32_t>{3, 2});
  t.Run();
  ExpectParts(t, ReferenceSplit<float>(x, 0, {3, 2}));
}

TEST(SplitOp, EmptyPartsAndEmptyInput) {
  Tensor x = RandomTensor<float>({3, 4});
  OpTester t("split");
  t.Input("X", x)
      .Output("Out", DataType::kFloat32, 3)
      .Attr("axis", -1)
      .Attr("sections", std::vector<int32_t>{0, 4, -1});
  t.Run();
  ExpectParts(t, ReferenceSplit<float>(x, 1, {0, 4, 0}));

  OpTester e("split");
  e.Input("X", MakeTensor<float>({0, 4}, {}))
      .Output("Out", DataType::kFloat32, 2)
      .Attr("axis", 1)
      .Attr("num", 2);
  e.Run();
  EXPECT_EQ(e.GetOutput("Out", 1).dims(), (DDim{0, 2}));
}

TEST(SplitOp, TensorInputsOverrideAttributes) {
  Tensor x = RandomTensor<float>({4, 5});
  OpTester t("split");
  t.Input("X", x)
      .Input("AxisTensor", MakeTensor<int64_t>({1}, {1}))
      .Inputs("SectionsTensorList",
              {MakeTensor<int32_t>({1}, {1}), MakeTensor<int64_t>({1}, {-1})})
      .Output("Out", DataType::kFloat32, 2)
      .Attr("axis", 0)
      .Attr("sections", std::vector<int32_t>{2, 2});
  t.Run();
  ExpectParts(t, ReferenceSplit<float>(x, 1, {1, 4}));
}

TEST(SplitOp, IntAndBoolData) {
  OpTester t("split");
  t.Input("X", MakeTensor<int64_t>({4}, {1, 2, int64_t(1) << 41, 4}))
      .Output("Out", DataType::kInt64, 2)
      .Attr("num", 2);
  t.Run();
  ExpectParts(t, {MakeTensor<int64_t>({2}, {1, 2}),
                  MakeTensor<int64_t>({2}, {int64_t(1) << 41, 4})});

  OpTester b("split");
  b.Input("X", MakeTensor<bool>({1, 3}, {true, false, true}))
      .Output("Out", DataType::kBool, 2)
      .Attr("axis", 1)
      .Attr("sections", std::vector<int32_t>{1, 2});
  b.Run();
  ExpectParts(b, {MakeTensor<bool>({1, 1}, {true}),
                  MakeTensor<bool>({1, 2}, {false, true})});
}

TEST(SplitOp, RankSixAndMultiThreaded) {
  Tensor x = RandomTensor<float>({2, 1, 3, 2, 4, 3});
  OpTester t("split");
  t.Input("X", x)
      .Output("Out", DataType::kFloat32, 2)
      .Attr("axis", 4)
      .Attr("sections", std::vector<int32_t>{1, 3});
  t.Run(framework::LibraryType::Plain(), /*threads=*/2);
  ExpectParts(t, ReferenceSplit<float>(x, 4, {1, 3}));
}

TEST(SplitOp, LoDKeptOnlyWhenRowsAreNotSplit) {
  const framework::LoD lod = {{0, 1, 2}};
  OpTester keep("split");
  keep.Input("X", MakeTensor<float>({2, 2}, IotaValues(4), lod))
      .Output("Out", DataType::kFloat32, 2)
      .Attr("axis", 1)
      .Attr("num", 2);
  keep.Run();
  EXPECT_EQ(keep.GetOutput("Out", 1).lod(), lod);

  OpTester drop("split");
  drop.Input("X", MakeTensor<float>({2, 2}, IotaValues(4), lod))
      .Output("Out", DataType::kFloat32, 2)
      .Attr("num", 2);
  drop.Run();
  EXPECT_TRUE(drop.GetOutput("Out", 0).lod().empty());
}

TEST(SplitOp, Errors) {
  auto run = [](int num, std::vector<int32_t> sections, int outs) {
    return [=] {
      OpTester t("split");
      t.Input("X", MakeTensor<float>({2, 5}, IotaValues(10)))
          .Output("Out", DataType::kFloat32, outs)
          .Attr("axis", 1)
          .Attr("num", num)
          .Attr("sections", sections);
      t.Run();
    };
  };
  ExpectError(run(2, {}, 2), ErrorCode::kInvalidArgument,
              {"split", "[2, 5]", "not divisible", "num = 2"});
  ExpectError(run(0, {2, 2}, 2), ErrorCode::kInvalidArgument,
              {"split", "[2, 2]", "sum to 4", "[2, 5]"});
  ExpectError(run(0, {-1, -1}, 2), ErrorCode::kInvalidArgument,
              {"split", "only one -1"});
  ExpectError(run(0, {4, 3, -1}, 3), ErrorCode::kInvalidArgument,
              {"split", "[4, 3, -1]", "[2, 5]"});
  ExpectError(run(5, {}, 2), ErrorCode::kInvalidArgument,
              {"split", "5 parts", "2 variables"});
  ExpectError(run(0, {}, 1), ErrorCode::kInvalidArgument,
              {"split", "sections is empty"});
}

TEST(SplitOp, AllKernelsAgree) {
  OpTester t("split");
  t.Input("X", RandomTensor<float>({13, 127}))
      .Output("Out", DataType::kFloat32, 2)
      .Attr("axis", 1)
      .Attr("sections", std::vector<int32_t>{100, -1});
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
