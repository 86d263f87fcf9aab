// fuse_conv_residual: conv + elementwise_add of a same-shaped tensor
// becomes fused_conv2d with ResidualData (then the activation after it
// fuses too), moving the convolution down to a residual written after it
// when nothing between rewrites its inputs; a broadcast operand stays.
#include "unittests/framework/pass_test_util.h"

namespace paddle_lite {
namespace framework {
namespace {

using paddle_lite::testing::RandomTensor;
using pass_testing::ApplyAndCompare;
using pass_testing::OpAt;
using pass_testing::OpTypes;

using Types = std::vector<std::string>;

// r = relu(x); c = conv(r); out = act(c + r) (the add's operands in
// either order); `residual_after` computes the residual after the conv.
ProgramBuilder ResidualBlock(bool conv_first_operand,
                             const std::string& act,
                             bool residual_after = false) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 6, -1, -1});
  b.AddParameter("w", RandomTensor<float>({6, 6, 3, 3}, -0.5, 0.5, 3));
  b.AddParameter("bias", RandomTensor<float>({6}, -1, 1, 4));
  b.AddVar("r", DataType::kFloat32, {-1, 6, -1, -1});
  b.AddVar("c", DataType::kFloat32, {-1, 6, -1, -1});
  b.AddVar("sum", DataType::kFloat32, {-1, 6, -1, -1});
  b.AddVar("out");
  auto residual = [&] { b.AddOp("relu", {{"X", {x}}}, {{"Out", {"r"}}}); };
  if (!residual_after) residual();
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {"w"}}, {"Bias", {"bias"}}},
          {{"Output", {"c"}}}, {{"paddings", std::vector<int>{1, 1}}});
  if (residual_after) residual();
  b.AddOp("elementwise_add",
          {{"X", {conv_first_operand ? "c" : "r"}},
           {"Y", {conv_first_operand ? "r" : "c"}}},
          {{"Out", {act.empty() ? "out" : "sum"}}});
  if (!act.empty()) b.AddOp(act, {{"X", {"sum"}}}, {{"Out", {"out"}}});
  b.AddOutput("out");
  return b;
}

TEST(FuseConvResidualPass, FusesTheAddThenTheActivation) {
  for (bool first : {true, false}) {
    SCOPED_TRACE(first ? "conv + residual" : "residual + conv");
    auto outcome =
        ApplyAndCompare(ResidualBlock(first, "relu"),
                        {"fuse_conv_residual", "fuse_conv_activation"},
                        {RandomTensor<float>({2, 6, 7, 5}, -2, 2)});
    ASSERT_EQ(OpTypes(outcome.program),
              (Types{"feed", "relu", "fused_conv2d", "fetch"}));
    const OpDesc& fused = OpAt(outcome, 2);
    EXPECT_EQ(fused.Input("ResidualData"), Types{"r"});
    EXPECT_EQ(fused.Input("Bias"), Types{"bias"});
    EXPECT_EQ(fused.Output("Output"), Types{"out"});
    EXPECT_EQ(AttrCast<std::string>(fused.attrs.at("fuse_activation")), "relu");
    EXPECT_EQ(outcome.changes.size(), 2u);
  }
}

TEST(FuseConvResidualPass, AloneLeavesNoActivation) {
  auto outcome =
      ApplyAndCompare(ResidualBlock(true, ""), {"fuse_conv_residual"},
                      {RandomTensor<float>({1, 6, 4, 4}, -2, 2)});
  ASSERT_EQ(OpTypes(outcome.program),
            (Types{"feed", "relu", "fused_conv2d", "fetch"}));
}

// The residual is written between the convolution and the add (a feature
// pyramid's upsampled map): the convolution moves down to the add.
TEST(FuseConvResidualPass, MovesTheConvDownToAResidualWrittenAfterIt) {
  auto outcome = ApplyAndCompare(ResidualBlock(true, "relu", true),
                                 {"fuse_conv_residual", "fuse_conv_activation"},
                                 {RandomTensor<float>({1, 6, 4, 4}, -2, 2)});
  ASSERT_EQ(OpTypes(outcome.program),
            (Types{"feed", "relu", "fused_conv2d", "fetch"}));
  EXPECT_EQ(OpAt(outcome, 2).Input("ResidualData"), Types{"r"});
}

// ... but not when an op between rewrites what the convolution reads.
TEST(FuseConvResidualPass, KeepsAConvWhoseInputIsRewrittenBeforeTheAdd) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 6, -1, -1});
  b.AddParameter("w", RandomTensor<float>({6, 6, 1, 1}, -0.5, 0.5, 3));
  for (const char* v : {"a", "c", "r"}) {
    b.AddVar(v, DataType::kFloat32, {-1, 6, -1, -1});
  }
  b.AddVar("out");
  b.AddOp("relu", {{"X", {x}}}, {{"Out", {"a"}}});
  b.AddOp("conv2d", {{"Input", {"a"}}, {"Filter", {"w"}}}, {{"Output", {"c"}}});
  b.AddOp("scale", {{"X", {"a"}}}, {{"Out", {"a"}}}, {{"scale", 3.f}});
  b.AddOp("relu", {{"X", {"a"}}}, {{"Out", {"r"}}});
  b.AddOp("elementwise_add", {{"X", {"c"}}, {"Y", {"r"}}}, {{"Out", {"out"}}});
  b.AddOutput("out");
  auto outcome = ApplyAndCompare(b, {"fuse_conv_residual"},
                                 {RandomTensor<float>({1, 6, 4, 4}, -2, 2)});
  EXPECT_TRUE(outcome.changes.empty());
}

TEST(FuseConvResidualPass, KeepsABroadcastOperand) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 4, 5, 5});
  auto y = b.AddInput("y", DataType::kFloat32, {-1, 4, 1, 1});
  b.AddParameter("w", RandomTensor<float>({4, 4, 1, 1}, -1, 1, 3));
  b.AddVar("c", DataType::kFloat32, {-1, 4, 5, 5});
  b.AddVar("out");
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {"w"}}}, {{"Output", {"c"}}});
  b.AddOp("elementwise_add", {{"X", {"c"}}, {"Y", {y}}}, {{"Out", {"out"}}});
  b.AddOutput("out");
  auto outcome = ApplyAndCompare(
      b, {"fuse_conv_residual"},
      {RandomTensor<float>({2, 4, 5, 5}), RandomTensor<float>({2, 4, 1, 1})});
  EXPECT_TRUE(outcome.changes.empty());
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
