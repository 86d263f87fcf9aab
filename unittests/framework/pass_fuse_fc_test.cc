// fuse_fc: mul / matmul / matmul_v2 + bias (+ relu) become fc with the
// right in_num_col_dims; anything else stays.
#include "unittests/framework/pass_test_util.h"

namespace paddle_lite {
namespace framework {
namespace {

using paddle_lite::testing::RandomTensor;
using pass_testing::ApplyAndCompare;
using pass_testing::OpAt;
using pass_testing::OpTypes;

using Types = std::vector<std::string>;

struct FcCase {
  const char* name;
  std::string op;
  AttributeMap attrs;
  DDim x_dims;  // the fed input; the declared one has -1 first
  int add_axis;
  bool relu;
  bool fused;
  int in_num_col_dims;
};

TEST(FuseFcPass, FusesProductsWithABias) {
  const FcCase cases[] = {
      {"mul + add + relu", "mul", {}, {5, 6}, -1, true, true, 1},
      {"mul 3-D rows",
       "mul",
       {{"x_num_col_dims", 2}},
       {2, 3, 6},
       2,
       false,
       true,
       2},
      {"mul flattening X", "mul", {}, {2, 2, 3}, 1, true, true, 1},
      {"matmul", "matmul", {{"alpha", 1.0f}}, {4, 6}, -1, true, true, 1},
      {"matmul_v2 3-D", "matmul_v2", {}, {2, 3, 6}, -1, false, true, 2},
      {"matmul alpha 2",
       "matmul",
       {{"alpha", 2.0f}},
       {4, 6},
       -1,
       false,
       false,
       0},
      {"matmul_v2 trans_x",
       "matmul_v2",
       {{"trans_x", true}},
       {6, 4},
       -1,
       false,
       false,
       0},
      {"bias on the wrong axis",
       "mul",
       {{"x_num_col_dims", 2}},
       {2, 5, 6},
       1,
       false,
       false,
       0},
  };
  for (const FcCase& c : cases) {
    SCOPED_TRACE(c.name);
    ProgramBuilder b;
    DDim declared = c.x_dims;
    declared[0] = -1;
    auto x = b.AddInput("x", DataType::kFloat32, declared);
    b.AddParameter("w", RandomTensor<float>({6, 5}, -1, 1, 3));
    b.AddParameter("bias", RandomTensor<float>({5}, -1, 1, 4));
    b.AddVar("p");
    b.AddVar("sum");
    b.AddVar("out");
    b.AddOp(c.op, {{"X", {x}}, {"Y", {"w"}}}, {{"Out", {"p"}}}, c.attrs);
    b.AddOp("elementwise_add", {{"X", {"p"}}, {"Y", {"bias"}}},
            {{"Out", {"sum"}}}, {{"axis", c.add_axis}});
    std::string last = "sum";
    if (c.relu) {
      b.AddOp("relu", {{"X", {"sum"}}}, {{"Out", {"out"}}});
      last = "out";
    }
    b.AddOutput(last);
    auto outcome = ApplyAndCompare(b, {"fuse_fc"},
                                   {RandomTensor<float>(c.x_dims, -1, 1, 8)});
    if (!c.fused) {
      EXPECT_TRUE(outcome.changes.empty());
      EXPECT_EQ(OpAt(outcome, 1).type, c.op);
      continue;
    }
    ASSERT_EQ(OpTypes(outcome.program), (Types{"feed", "fc", "fetch"}));
    const OpDesc& fc = OpAt(outcome, 1);
    EXPECT_EQ(fc.Input("Input"), Types{"x"});
    EXPECT_EQ(fc.Input("W"), Types{"w"});
    EXPECT_EQ(fc.Input("Bias"), Types{"bias"});
    EXPECT_EQ(fc.Output("Out"), Types{last});
    EXPECT_EQ(AttrCast<int>(fc.attrs.at("in_num_col_dims")), c.in_num_col_dims);
    EXPECT_EQ(AttrCast<std::string>(fc.attrs.at("activation_type")),
              c.relu ? "relu" : "");
  }
}

TEST(FuseFcPass, StopsAtAFetchedSum) {
  // The sum is an output itself: fc writes it and the relu stays.
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 6});
  b.AddParameter("w", RandomTensor<float>({6, 5}, -1, 1, 3));
  b.AddParameter("bias", RandomTensor<float>({1, 5}, -1, 1, 4));
  b.AddVar("p");
  b.AddVar("sum");
  b.AddVar("out");
  b.AddOp("mul", {{"X", {x}}, {"Y", {"w"}}}, {{"Out", {"p"}}});
  b.AddOp("elementwise_add", {{"X", {"p"}}, {"Y", {"bias"}}},
          {{"Out", {"sum"}}});
  b.AddOp("relu", {{"X", {"sum"}}}, {{"Out", {"out"}}});
  b.AddOutput("sum");
  b.AddOutput("out");
  auto outcome =
      ApplyAndCompare(b, {"fuse_fc"}, {RandomTensor<float>({3, 6}, -1, 1, 8)});
  ASSERT_EQ(OpTypes(outcome.program),
            (Types{"feed", "fc", "relu", "fetch", "fetch"}));
  EXPECT_EQ(OpAt(outcome, 1).Output("Out"), Types{"sum"});
}

TEST(FuseFcPass, KeepsAFedWeight) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 6});
  auto w = b.AddInput("w", DataType::kFloat32, {6, 5});
  b.AddParameter("bias", RandomTensor<float>({5}, -1, 1, 4));
  b.AddVar("p");
  b.AddVar("sum");
  b.AddOp("matmul_v2", {{"X", {x}}, {"Y", {w}}}, {{"Out", {"p"}}});
  b.AddOp("elementwise_add", {{"X", {"p"}}, {"Y", {"bias"}}},
          {{"Out", {"sum"}}});
  b.AddOutput("sum");
  auto outcome = ApplyAndCompare(
      b, {"fuse_fc"},
      {RandomTensor<float>({2, 6}), RandomTensor<float>({6, 5}, -1, 1, 2)});
  EXPECT_TRUE(outcome.changes.empty());
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
