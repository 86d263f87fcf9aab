// fuse_elementwise_activation: add / mul + activation become the fused
// ops with the same result, broadcasting included.
#include "unittests/framework/pass_test_util.h"

namespace paddle_lite {
namespace framework {
namespace {

using paddle_lite::testing::RandomTensor;
using pass_testing::ApplyAndCompare;
using pass_testing::OpAt;
using pass_testing::OpTypes;

using Types = std::vector<std::string>;

TEST(FuseElementwiseActivationPass, FusesAddAndMul) {
  struct Case {
    std::string op;
    std::string act;
    AttributeMap act_attrs;
    DDim y_dims;
    int axis;
  };
  const Case cases[] = {
      {"elementwise_add", "relu", {}, {2, 3, 4}, -1},
      {"elementwise_add", "hard_swish", {}, {3}, 1},
      {"elementwise_mul", "sigmoid", {}, {4}, -1},
      {"elementwise_mul", "swish", {{"beta", 0.7f}}, {2, 1, 4}, -1},
      {"elementwise_add", "relu6", {{"threshold", 1.0f}}, {1}, -1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op + " + " + c.act);
    ProgramBuilder b;
    auto x = b.AddInput("x", DataType::kFloat32, {2, 3, 4});
    auto y = b.AddInput("y", DataType::kFloat32, c.y_dims);
    b.AddVar("s");
    b.AddVar("out");
    b.AddOp(c.op, {{"X", {x}}, {"Y", {y}}}, {{"Out", {"s"}}},
            {{"axis", c.axis}});
    b.AddOp(c.act, {{"X", {"s"}}}, {{"Out", {"out"}}}, c.act_attrs);
    b.AddOutput("out");
    auto outcome = ApplyAndCompare(b, {"fuse_elementwise_activation"},
                                   {RandomTensor<float>({2, 3, 4}, -4, 4, 1),
                                    RandomTensor<float>(c.y_dims, -4, 4, 2)});
    ASSERT_EQ(OpTypes(outcome.program),
              (Types{"feed", "feed", "fused_" + c.op, "fetch"}));
    EXPECT_EQ(
        AttrCast<std::string>(OpAt(outcome, 2).attrs.at("fuse_activation")),
        c.act);
    EXPECT_EQ(AttrCast<int>(OpAt(outcome, 2).attrs.at("axis")), c.axis);
  }
}

TEST(FuseElementwiseActivationPass, LeavesIntegersSubAndSharedResults) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {2, 3});
  auto i = b.AddInput("i", DataType::kInt32, {2, 3});
  for (const char* v : {"d", "d_act", "s", "s_act", "t", "t_act"}) b.AddVar(v);
  // sub is not fused; a sum read twice is not fused.
  b.AddOp("elementwise_sub", {{"X", {x}}, {"Y", {x}}}, {{"Out", {"d"}}});
  b.AddOp("relu", {{"X", {"d"}}}, {{"Out", {"d_act"}}});
  b.AddOp("elementwise_add", {{"X", {x}}, {"Y", {x}}}, {{"Out", {"s"}}});
  b.AddOp("relu", {{"X", {"s"}}}, {{"Out", {"s_act"}}});
  b.AddOp("elementwise_add", {{"X", {i}}, {"Y", {i}}}, {{"Out", {"t"}}});
  b.AddOutput("d_act");
  b.AddOutput("s_act");
  b.AddOutput("s");
  b.AddOutput("t");
  auto outcome = ApplyAndCompare(
      b, {"fuse_elementwise_activation"},
      {RandomTensor<float>({2, 3}),
       paddle_lite::testing::MakeTensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_TRUE(outcome.changes.empty());

  // An int32 add followed by an activation is not fused (no fused kernel
  // for integers); checked on the program alone.
  ProgramBuilder ib;
  auto a = ib.AddInput("a", DataType::kInt32, {2});
  ib.AddVar("u", DataType::kInt32);
  ib.AddVar("v", DataType::kInt32);
  ib.AddOp("elementwise_add", {{"X", {a}}, {"Y", {a}}}, {{"Out", {"u"}}});
  ib.AddOp("relu", {{"X", {"u"}}}, {{"Out", {"v"}}});
  ib.AddOutput("v");
  ProgramDesc program = ib.Build();
  Scope weights;
  auto reports =
      ApplyPasses(&program, &weights, {"fuse_elementwise_activation"});
  EXPECT_TRUE(reports.at(0).changes.empty());
  EXPECT_EQ(OpTypes(program),
            (Types{"feed", "elementwise_add", "relu", "fetch"}));
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
