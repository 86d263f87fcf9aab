// fuse_conv_activation: every fusable activation gives the same result as
// conv2d + activation; activations it cannot express stay separate.
#include "unittests/framework/pass_test_util.h"

namespace paddle_lite {
namespace framework {
namespace {

using paddle_lite::testing::RandomTensor;
using pass_testing::ApplyAndCompare;
using pass_testing::OpAt;
using pass_testing::OpTypes;

using Types = std::vector<std::string>;

struct ActCase {
  std::string type;
  AttributeMap attrs;
  bool fused;
  float alpha;
  float beta;
};

std::vector<ActCase> ActCases() {
  return {
      {"relu", {}, true, 0, 0},
      {"relu6", {{"threshold", 0.5f}}, true, 0, 0.5f},
      {"relu6", {}, true, 0, 6.0f},
      {"leaky_relu", {{"alpha", 0.1f}}, true, 0.1f, 0},
      {"hard_swish", {}, true, 0, 0},
      {"hard_swish",
       {{"threshold", 6.0f}, {"scale", 6.0f}, {"offset", 3.0f}},
       true,
       0,
       0},
      {"hard_swish", {{"threshold", 5.0f}}, false, 0, 0},
      {"sigmoid", {}, true, 0, 0},
      {"swish", {{"beta", 1.5f}}, true, 1.5f, 0},
      {"hard_sigmoid", {{"slope", 0.3f}, {"offset", 0.4f}}, true, 0.3f, 0.4f},
      {"tanh", {}, false, 0, 0},
  };
}

TEST(FuseConvActivationPass, EachActivation) {
  for (const ActCase& c : ActCases()) {
    for (const char* conv : {"conv2d", "depthwise_conv2d"}) {
      SCOPED_TRACE(c.type + " after " + conv + " attrs " +
                   std::to_string(c.attrs.size()));
      ProgramBuilder b;
      auto x = b.AddInput("x", DataType::kFloat32, {-1, 4, 5, 5});
      b.AddParameter("w", RandomTensor<float>({4, 1, 3, 3}, -1, 1, 3));
      b.AddVar("c");
      b.AddVar("out");
      b.AddOp(conv, {{"Input", {x}}, {"Filter", {"w"}}}, {{"Output", {"c"}}},
              {{"paddings", std::vector<int>{1, 1}}, {"groups", 4}});
      b.AddOp(c.type, {{"X", {"c"}}}, {{"Out", {"out"}}}, c.attrs);
      b.AddOutput("out");
      auto outcome =
          ApplyAndCompare(b, {"fuse_conv_activation"},
                          {RandomTensor<float>({2, 4, 5, 5}, -3, 3)});
      if (!c.fused) {
        EXPECT_EQ(OpTypes(outcome.program),
                  (Types{"feed", conv, c.type, "fetch"}));
        continue;
      }
      ASSERT_EQ(OpTypes(outcome.program),
                (Types{"feed", "fused_conv2d", "fetch"}));
      const OpDesc& fused = OpAt(outcome, 1);
      EXPECT_EQ(fused.Output("Output"), Types{"out"});
      EXPECT_EQ(AttrCast<std::string>(fused.attrs.at("fuse_activation")),
                c.type);
      EXPECT_EQ(AttrCast<float>(fused.attrs.at("fuse_alpha")), c.alpha);
      EXPECT_EQ(AttrCast<float>(fused.attrs.at("fuse_beta")), c.beta);
      EXPECT_EQ(AttrCast<int>(fused.attrs.at("groups")), 4);
    }
  }
}

// conv2d_transpose keeps its type and takes the activation in its own
// fuse_* attributes; one that has an activation already takes no second.
TEST(FuseConvActivationPass, TransposedConvTakesItsAttributes) {
  // conv2d_transpose (with `conv_attrs`) -> activation `type`.
  auto program = [](const AttributeMap& conv_attrs, const std::string& type,
                    const AttributeMap& act_attrs) {
    ProgramBuilder b;
    auto x = b.AddInput("x", DataType::kFloat32, {-1, 4, 5, 5});
    b.AddParameter("w", RandomTensor<float>({4, 3, 2, 2}, -1, 1, 3));
    b.AddVar("c");
    b.AddVar("out");
    AttributeMap attrs = conv_attrs;
    attrs["strides"] = std::vector<int>{2, 2};
    b.AddOp("conv2d_transpose", {{"Input", {x}}, {"Filter", {"w"}}},
            {{"Output", {"c"}}}, attrs);
    b.AddOp(type, {{"X", {"c"}}}, {{"Out", {"out"}}}, act_attrs);
    b.AddOutput("out");
    return b;
  };
  for (const ActCase& c : ActCases()) {
    SCOPED_TRACE(c.type + " attrs " + std::to_string(c.attrs.size()));
    auto outcome =
        ApplyAndCompare(program({}, c.type, c.attrs), {"fuse_conv_activation"},
                        {RandomTensor<float>({2, 4, 5, 5}, -3, 3)});
    if (!c.fused) {
      EXPECT_EQ(OpTypes(outcome.program),
                (Types{"feed", "conv2d_transpose", c.type, "fetch"}));
      continue;
    }
    ASSERT_EQ(OpTypes(outcome.program),
              (Types{"feed", "conv2d_transpose", "fetch"}));
    const OpDesc& fused = OpAt(outcome, 1);
    EXPECT_EQ(fused.Output("Output"), Types{"out"});
    EXPECT_EQ(AttrCast<std::string>(fused.attrs.at("fuse_activation")), c.type);
    EXPECT_EQ(AttrCast<float>(fused.attrs.at("fuse_alpha")), c.alpha);
    EXPECT_EQ(AttrCast<float>(fused.attrs.at("fuse_beta")), c.beta);
  }
  auto outcome = ApplyAndCompare(
      program({{"fuse_activation", std::string("relu")}}, "sigmoid", {}),
      {"fuse_conv_activation"}, {RandomTensor<float>({1, 4, 5, 5}, -3, 3)});
  EXPECT_EQ(OpTypes(outcome.program),
            (Types{"feed", "conv2d_transpose", "sigmoid", "fetch"}));
}

TEST(FuseConvActivationPass, KeepsAConvOutputReadTwice) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 2, 3, 3});
  b.AddParameter("w", RandomTensor<float>({2, 2, 1, 1}, -1, 1, 3));
  b.AddVar("c");
  b.AddVar("out");
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {"w"}}}, {{"Output", {"c"}}});
  b.AddOp("relu", {{"X", {"c"}}}, {{"Out", {"out"}}});
  b.AddOutput("out");
  b.AddOutput("c");
  auto outcome = ApplyAndCompare(b, {"fuse_conv_activation"},
                                 {RandomTensor<float>({1, 2, 3, 3})});
  EXPECT_TRUE(outcome.changes.empty());
}

TEST(FuseConvActivationPass, KeepsTheConvBiasAndNhwc) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 5, 5, 3});
  b.AddParameter("w", RandomTensor<float>({2, 3, 3, 3}, -1, 1, 3));
  b.AddParameter("bias", RandomTensor<float>({2}, -1, 1, 4));
  b.AddVar("c");
  b.AddVar("out");
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {"w"}}, {"Bias", {"bias"}}},
          {{"Output", {"c"}}},
          {{"data_format", std::string("NHWC")},
           {"strides", std::vector<int>{2, 2}}});
  b.AddOp("leaky_relu", {{"X", {"c"}}}, {{"Out", {"out"}}}, {{"alpha", 0.2f}});
  b.AddOutput("out");
  auto outcome = ApplyAndCompare(b, {"fuse_conv_activation"},
                                 {RandomTensor<float>({2, 5, 5, 3}, -2, 2)});
  ASSERT_EQ(OpTypes(outcome.program), (Types{"feed", "fused_conv2d", "fetch"}));
  EXPECT_EQ(OpAt(outcome, 1).Input("Bias"), Types{"bias"});
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
