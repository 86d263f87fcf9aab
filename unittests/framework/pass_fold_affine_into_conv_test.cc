// fold_affine_into_conv: a constant multiply (and add) of one value or one
// per channel after a convolution folds into its filter and bias with the
// same results; other shapes, computed operands and shared outputs stay.
#include "unittests/framework/pass_test_util.h"

namespace paddle_lite {
namespace framework {
namespace {

using paddle_lite::testing::RandomTensor;
using pass_testing::ApplyAndCompare;
using pass_testing::OpAt;
using pass_testing::OpTypes;

using Types = std::vector<std::string>;

struct AffineCase {
  const char* name;
  const char* conv;
  bool constant_first;  // s * c and t + m rather than c * s and m + t
  bool conv_bias;       // the conv has a Bias already
  DDim scale_dims;      // of the multiply's constant
  int scale_axis;
  DDim shift_dims;  // of the add's constant; empty: no add
  int shift_axis;
  bool folded;
};

// x [N, 4, 5, 5] -> conv (4 output channels) -> mul -> [add] -> relu.
ProgramBuilder AffineProgram(const AffineCase& c) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 4, 5, 5});
  const bool depthwise = std::string(c.conv) == "depthwise_conv2d";
  b.AddParameter("w",
                 RandomTensor<float>({4, depthwise ? 1 : 4, 3, 3}, -1, 1, 1));
  b.AddParameter("s", RandomTensor<float>(c.scale_dims, 0.5, 2, 2));
  VarNameMap conv_inputs = {{"Input", {x}}, {"Filter", {"w"}}};
  if (c.conv_bias) {
    b.AddParameter("b", RandomTensor<float>({4}, -1, 1, 3));
    conv_inputs.push_back({"Bias", {"b"}});
  }
  for (const char* v : {"c", "m", "a", "out"}) b.AddVar(v);
  AttributeMap conv_attrs = {{"paddings", std::vector<int>{1, 1}}};
  if (depthwise) conv_attrs["groups"] = 4;
  b.AddOp(c.conv, conv_inputs, {{"Output", {"c"}}}, conv_attrs);
  auto operands = [&](const std::string& var, const std::string& constant) {
    return c.constant_first ? VarNameMap{{"X", {constant}}, {"Y", {var}}}
                            : VarNameMap{{"X", {var}}, {"Y", {constant}}};
  };
  b.AddOp("elementwise_mul", operands("c", "s"), {{"Out", {"m"}}},
          {{"axis", c.scale_axis}});
  std::string last = "m";
  if (!c.shift_dims.empty()) {
    b.AddParameter("t", RandomTensor<float>(c.shift_dims, -1, 1, 4));
    b.AddOp("elementwise_add", operands("m", "t"), {{"Out", {"a"}}},
            {{"axis", c.shift_axis}});
    last = "a";
  }
  b.AddOp("relu", {{"X", {last}}}, {{"Out", {"out"}}});
  b.AddOutput("out");
  return b;
}

TEST(FoldAffineIntoConvPass, FoldsOneValueOrOnePerChannel) {
  const AffineCase cases[] = {
      {"scalar mul + scalar add",
       "conv2d",
       false,
       false,
       {1},
       -1,
       {1},
       -1,
       true},
      {"s * c + t, scalars", "conv2d", true, false, {1}, -1, {1}, -1, true},
      {"[M] mul axis 1, no add", "conv2d", false, false, {4}, 1, {}, 0, true},
      {"[1, M, 1, 1] mul + [M] add, bias bound",
       "conv2d",
       false,
       true,
       {1, 4, 1, 1},
       -1,
       {4},
       1,
       true},
      {"depthwise, scalar mul + [M, 1, 1] add",
       "depthwise_conv2d",
       false,
       true,
       {1},
       -1,
       {4, 1, 1},
       -1,
       true},
      {"[M] mul along W", "conv2d", false, false, {5}, -1, {}, 0, false},
      {"[M] add along W: the mul alone folds",
       "conv2d",
       false,
       false,
       {1},
       -1,
       {5},
       -1,
       true},
      {"s * c with s per channel (not taken)",
       "conv2d",
       true,
       false,
       {1, 4, 1, 1},
       -1,
       {},
       0,
       false},
  };
  for (const AffineCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto outcome =
        ApplyAndCompare(AffineProgram(c), {"fold_affine_into_conv"},
                        {RandomTensor<float>({2, 4, 5, 5}, -2, 2, 5)});
    if (!c.folded) {
      EXPECT_TRUE(outcome.changes.empty());
      continue;
    }
    const bool add_stays = !c.shift_dims.empty() && c.shift_dims == DDim{5};
    const Types expected =
        add_stays ? Types{"feed", c.conv, "elementwise_add", "relu", "fetch"}
                  : Types{"feed", c.conv, "relu", "fetch"};
    ASSERT_EQ(OpTypes(outcome.program), expected);
    const OpDesc& conv = OpAt(outcome, 1);
    EXPECT_EQ(conv.Input("Filter"), Types{"w@affine_folded"});
    EXPECT_EQ(conv.Input("Bias"), Types{"w@affine_folded_bias"});
    const bool add_folded = !c.shift_dims.empty() && !add_stays;
    EXPECT_EQ(conv.Output("Output"), Types{add_folded ? "a" : "m"});
    // The original weights stay as they were.
    EXPECT_NE(outcome.weights->FindVar("w"), nullptr);
  }
}

TEST(FoldAffineIntoConvPass, KeepsComputedOrSharedOperands) {
  {
    SCOPED_TRACE("a computed scale");
    ProgramBuilder b;
    auto x = b.AddInput("x", DataType::kFloat32, {-1, 4, 5, 5});
    auto s = b.AddInput("s", DataType::kFloat32, {1});
    b.AddParameter("w", RandomTensor<float>({4, 4, 3, 3}, -1, 1, 1));
    b.AddVar("c");
    b.AddVar("m");
    b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {"w"}}}, {{"Output", {"c"}}});
    b.AddOp("elementwise_mul", {{"X", {"c"}}, {"Y", {s}}}, {{"Out", {"m"}}});
    b.AddOutput("m");
    auto outcome = ApplyAndCompare(b, {"fold_affine_into_conv"},
                                   {RandomTensor<float>({2, 4, 5, 5}, -2, 2, 5),
                                    RandomTensor<float>({1}, 0.5, 2, 6)});
    EXPECT_EQ(OpTypes(outcome.program),
              (Types{"feed", "feed", "conv2d", "elementwise_mul", "fetch"}));
  }
  {
    SCOPED_TRACE("the conv output fetched too");
    ProgramBuilder b;
    auto x = b.AddInput("x", DataType::kFloat32, {-1, 4, 5, 5});
    b.AddParameter("w", RandomTensor<float>({4, 4, 3, 3}, -1, 1, 1));
    b.AddParameter("s", RandomTensor<float>({1}, 0.5, 2, 2));
    b.AddVar("c");
    b.AddVar("m");
    b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {"w"}}}, {{"Output", {"c"}}});
    b.AddOp("elementwise_mul", {{"X", {"c"}}, {"Y", {"s"}}}, {{"Out", {"m"}}});
    b.AddOutput("m");
    b.AddOutput("c");
    auto outcome =
        ApplyAndCompare(b, {"fold_affine_into_conv"},
                        {RandomTensor<float>({2, 4, 5, 5}, -2, 2, 5)});
    EXPECT_EQ(OpTypes(outcome.program),
              (Types{"feed", "conv2d", "elementwise_mul", "fetch", "fetch"}));
  }
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
