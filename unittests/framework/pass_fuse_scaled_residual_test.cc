// fuse_scaled_residual: x + x * s becomes x * (s + 1) with the same
// results, in either operand order; products read elsewhere, sums with
// another tensor, operands of other ranks and an x rewritten in between
// stay as they are.
#include "unittests/framework/pass_test_util.h"

namespace paddle_lite {
namespace framework {
namespace {

using paddle_lite::testing::RandomTensor;
using pass_testing::ApplyAndCompare;
using pass_testing::OpAt;
using pass_testing::OpTypes;

using Types = std::vector<std::string>;

// x [N, 8, 5, 5]; s = sigmoid(avg_pool(x)) [N, 8, 1, 1], the SE gate.
ProgramBuilder GateProgram(std::string* x, DDim gate_dims = {-1, 8, 1, 1}) {
  ProgramBuilder b;
  *x = b.AddInput("x", DataType::kFloat32, {-1, 8, 5, 5});
  b.AddVar("pooled", DataType::kFloat32, {-1, 8, 1, 1});
  b.AddVar("s", DataType::kFloat32, gate_dims);
  b.AddOp("pool2d", {{"X", {*x}}}, {{"Out", {"pooled"}}},
          {{"pooling_type", std::string("avg")},
           {"global_pooling", true},
           {"ksize", std::vector<int>{1, 1}}});
  b.AddOp("sigmoid", {{"X", {"pooled"}}}, {{"Out", {"s"}}});
  b.AddVar("t", DataType::kFloat32, {-1, 8, 5, 5});
  b.AddVar("out", DataType::kFloat32, {-1, 8, 5, 5});
  return b;
}

TEST(FuseScaledResidualPass, GatedResidualBecomesOneMultiply) {
  for (bool x_first_in_mul : {true, false}) {
    for (bool x_first_in_add : {true, false}) {
      SCOPED_TRACE(std::string("mul ") + (x_first_in_mul ? "x*s" : "s*x") +
                   ", add " + (x_first_in_add ? "x+t" : "t+x"));
      std::string x;
      ProgramBuilder b = GateProgram(&x);
      b.AddOp("elementwise_mul",
              {{"X", {x_first_in_mul ? x : "s"}},
               {"Y", {x_first_in_mul ? "s" : x}}},
              {{"Out", {"t"}}});
      b.AddOp("elementwise_add",
              {{"X", {x_first_in_add ? x : "t"}},
               {"Y", {x_first_in_add ? "t" : x}}},
              {{"Out", {"out"}}});
      b.AddOutput("out");
      auto outcome =
          ApplyAndCompare(b, {"fuse_scaled_residual"},
                          {RandomTensor<float>({2, 8, 5, 5}, -3, 3)});
      ASSERT_EQ(OpTypes(outcome.program),
                (Types{"feed", "pool2d", "sigmoid", "scale", "elementwise_mul",
                       "fetch"}));
      const OpDesc& scale = OpAt(outcome, 3);
      EXPECT_EQ(scale.Input("X"), Types{"s"});
      EXPECT_EQ(AttrCast<float>(scale.attrs.at("bias")), 1.0f);
      const OpDesc& mul = OpAt(outcome, 4);
      EXPECT_EQ(mul.Output("Out"), Types{"out"});
      EXPECT_EQ(mul.Input(x_first_in_mul ? "X" : "Y"), Types{x});
      EXPECT_EQ(mul.Input(x_first_in_mul ? "Y" : "X"), scale.Output("Out"));
    }
  }
}

TEST(FuseScaledResidualPass, KeepsOtherShapes) {
  auto unchanged = [](const ProgramBuilder& b, const Types& types) {
    auto outcome = ApplyAndCompare(b, {"fuse_scaled_residual"},
                                   {RandomTensor<float>({2, 8, 5, 5}, -3, 3)});
    EXPECT_EQ(OpTypes(outcome.program), types);
    EXPECT_TRUE(outcome.changes.empty());
  };
  {
    SCOPED_TRACE("product fetched too");
    std::string x;
    ProgramBuilder b = GateProgram(&x);
    b.AddOp("elementwise_mul", {{"X", {x}}, {"Y", {"s"}}}, {{"Out", {"t"}}});
    b.AddOp("elementwise_add", {{"X", {x}}, {"Y", {"t"}}}, {{"Out", {"out"}}});
    b.AddOutput("out");
    b.AddOutput("t");
    unchanged(b, {"feed", "pool2d", "sigmoid", "elementwise_mul",
                  "elementwise_add", "fetch", "fetch"});
  }
  {
    SCOPED_TRACE("added to another tensor");
    std::string x;
    ProgramBuilder b = GateProgram(&x);
    b.AddVar("r", DataType::kFloat32, {-1, 8, 5, 5});
    b.AddOp("relu", {{"X", {x}}}, {{"Out", {"r"}}});
    b.AddOp("elementwise_mul", {{"X", {x}}, {"Y", {"s"}}}, {{"Out", {"t"}}});
    b.AddOp("elementwise_add", {{"X", {"r"}}, {"Y", {"t"}}},
            {{"Out", {"out"}}});
    b.AddOutput("out");
    unchanged(b, {"feed", "pool2d", "sigmoid", "relu", "elementwise_mul",
                  "elementwise_add", "fetch"});
  }
  {
    SCOPED_TRACE("gate of another rank");
    std::string x;
    ProgramBuilder b = GateProgram(&x);
    b.AddParameter("shift", RandomTensor<float>({8}, -1, 1, 5));
    b.AddOp("elementwise_mul", {{"X", {x}}, {"Y", {"shift"}}}, {{"Out", {"t"}}},
            {{"axis", 1}});
    b.AddOp("elementwise_add", {{"X", {x}}, {"Y", {"t"}}}, {{"Out", {"out"}}});
    b.AddOutput("out");
    unchanged(b, {"feed", "pool2d", "sigmoid", "elementwise_mul",
                  "elementwise_add", "fetch"});
  }
  {
    SCOPED_TRACE("x rewritten between the multiply and the add");
    std::string x;
    ProgramBuilder b = GateProgram(&x);
    b.AddVar("y", DataType::kFloat32, {-1, 8, 5, 5});
    b.AddOp("relu", {{"X", {x}}}, {{"Out", {"y"}}});
    b.AddOp("elementwise_mul", {{"X", {"y"}}, {"Y", {"s"}}}, {{"Out", {"t"}}});
    b.AddOp("scale", {{"X", {"y"}}}, {{"Out", {"y"}}}, {{"scale", 2.0f}});
    b.AddOp("elementwise_add", {{"X", {"y"}}, {"Y", {"t"}}},
            {{"Out", {"out"}}});
    b.AddOutput("out");
    unchanged(b, {"feed", "pool2d", "sigmoid", "relu", "elementwise_mul",
                  "scale", "elementwise_add", "fetch"});
  }
  {
    SCOPED_TRACE("a multiply, then a difference");
    std::string x;
    ProgramBuilder b = GateProgram(&x);
    b.AddOp("elementwise_mul", {{"X", {x}}, {"Y", {"s"}}}, {{"Out", {"t"}}});
    b.AddOp("elementwise_sub", {{"X", {x}}, {"Y", {"t"}}}, {{"Out", {"out"}}});
    b.AddOutput("out");
    unchanged(b, {"feed", "pool2d", "sigmoid", "elementwise_mul",
                  "elementwise_sub", "fetch"});
  }
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
