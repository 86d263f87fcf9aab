#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;

// 4 rows of width 3: row r is [r, 10 r, 100 r] + 1.
framework::Tensor Table() {
  std::vector<float> w;
  for (int r = 0; r < 4; ++r) {
    w.insert(w.end(), {r + 1.f, 10.f * r + 1, 100.f * r + 1});
  }
  return MakeTensor<float>({4, 3}, w);
}

TEST(LookupTableOp, PicksRowsAndKeepsIdsLoD) {
  OpTester t("lookup_table");
  t.Input("W", Table())
      .Input("Ids", MakeTensor<int64_t>({3, 1}, {2, 0, 2}, {{0, 1, 3}}))
      .Output("Out");
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({3, 3}, {3, 21, 201, 1, 1, 1, 3, 21, 201},
                                     {{0, 1, 3}}));
}

TEST(LookupTableOp, PaddingIdxRowsAreZero) {
  OpTester t("lookup_table");
  t.Input("W", Table())
      .Input("Ids", MakeTensor<int64_t>({2, 2, 1}, {1, 3, 3, 0}))
      .Output("Out")
      .Attr("padding_idx", int64_t{3});
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({2, 2, 3}, {2, 11, 101, 0, 0, 0,  //
                                                 0, 0, 0, 1, 1, 1}));
}

TEST(LookupTableOp, OutOfRangeIdsAreAnError) {
  for (int64_t bad : {4, -1}) {
    OpTester t("lookup_table");
    t.Input("W", Table())
        .Input("Ids", MakeTensor<int64_t>({2, 1}, {0, bad}))
        .Output("Out");
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"lookup_table", "is " + std::to_string(bad), "4 rows"});
  }
}

TEST(LookupTableOp, EmptyIds) {
  OpTester t("lookup_table");
  t.Input("W", Table())
      .Input("Ids", MakeTensor<int64_t>({0, 1}, {}))
      .Output("Out");
  t.Run();
  EXPECT_EQ(t.GetOutput("Out").dims(), (framework::DDim{0, 3}));
}

TEST(LookupTableOp, RunAllKernels) {
  OpTester t("lookup_table");
  t.Input("W", RandomTensor<float>({13, 5}))
      .Input("Ids", MakeTensor<int64_t>({4, 1}, {12, 0, 5, 5}))
      .Output("Out");
  t.RunAllKernels();
}

TEST(LookupTableOp, ShapeErrors) {
  {
    OpTester t("lookup_table");
    t.Input("W", Table())
        .Input("Ids", MakeTensor<int64_t>({2, 2}, {0, 1, 2, 3}))
        .Output("Out");
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"lookup_table", "last dim of Ids", "[2, 2]"});
  }
  {
    OpTester t("lookup_table");
    t.Input("W", RandomTensor<float>({4}))
        .Input("Ids", MakeTensor<int64_t>({1, 1}, {0}))
        .Output("Out");
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"lookup_table", "2-D", "[4]"});
  }
  {
    OpTester t("lookup_table");
    t.Input("W", Table())
        .Input("Ids", MakeTensor<float>({1, 1}, {0}))
        .Output("Out");
    ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
                {"lookup_table", "Ids must be int64 or int32", "float32"});
  }
}

TEST(LookupTableV2Op, AnyIdsShapeAndInt32Ids) {
  OpTester t("lookup_table_v2");
  t.Input("W", Table())
      .Input("Ids", MakeTensor<int32_t>({2, 2}, {3, 0, 1, 1}))
      .Output("Out");
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<float>({2, 2, 3}, {4, 31, 301, 1, 1, 1,  //
                                                 2, 11, 101, 2, 11, 101}));

  OpTester s("lookup_table_v2");
  s.Input("W", Table())
      .Input("Ids", MakeTensor<int64_t>({}, {2}))
      .Output("Out");
  s.Run();  // a 0-D id gives one row
  ExpectTensorNear(s.GetOutput("Out"), MakeTensor<float>({3}, {3, 21, 201}));
}

TEST(LookupTableV2Op, PaddingIdxAndDouble) {
  OpTester t("lookup_table_v2");
  t.Input("W", MakeTensor<double>({2, 2}, {1, 2, 3, 4}))
      .Input("Ids", MakeTensor<int64_t>({3}, {0, 1, 0}))
      .Output("Out", DataType::kFloat64)
      .Attr("padding_idx", int64_t{0});
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"),
                   MakeTensor<double>({3, 2}, {0, 0, 3, 4, 0, 0}));
}

TEST(LookupTableV2Op, OutOfRangeIdsAreAnError) {
  OpTester t("lookup_table_v2");
  t.Input("W", Table())
      .Input("Ids", MakeTensor<int32_t>({3}, {0, 1, 7}))
      .Output("Out")
      .Attr("padding_idx", int64_t{1});
  ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument,
              {"lookup_table_v2", "element 2 is 7", "4 rows", "[0, 4)"});
}

TEST(LookupTableV2Op, RunAllKernels) {
  OpTester t("lookup_table_v2");
  t.Input("W", RandomTensor<float>({13, 5}))
      .Input("Ids", MakeTensor<int64_t>({2, 3}, {12, 0, 5, 5, 1, 2}))
      .Output("Out");
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
