// fuse_conv_bias: a per-channel constant add becomes the conv's Bias; any
// other add stays.
#include "unittests/framework/pass_test_util.h"

namespace paddle_lite {
namespace framework {
namespace {

using paddle_lite::testing::RandomTensor;
using pass_testing::ApplyAndCompare;
using pass_testing::OpAt;
using pass_testing::OpTypes;

using Types = std::vector<std::string>;

struct BiasCase {
  const char* name;
  DDim bias_dims;
  int axis;
  bool bias_is_input;  // fed rather than a parameter
  bool fused;
};

TEST(FuseConvBiasPass, FusesOnlyPerChannelConstants) {
  // Output [2, 4, 4, 4]: [4] with axis -1 runs along W, not channels.
  const BiasCase cases[] = {
      {"[M] axis 1", {4}, 1, false, true},
      {"[1, M, 1, 1] axis -1", {1, 4, 1, 1}, -1, false, true},
      {"[M, 1, 1] axis -1", {4, 1, 1}, -1, false, true},
      {"[M] axis -1 (along W)", {4}, -1, false, false},
      {"[1, 1, 1, 4] (along W)", {1, 1, 1, 4}, -1, false, false},
      {"fed bias", {4}, 1, true, false},
  };
  for (const BiasCase& c : cases) {
    SCOPED_TRACE(c.name);
    ProgramBuilder b;
    auto x = b.AddInput("x", DataType::kFloat32, {-1, 3, 4, 4});
    const Tensor bias = RandomTensor<float>(c.bias_dims, -1, 1, 9);
    std::vector<Tensor> inputs(c.bias_is_input ? 2 : 1);
    inputs[0] = RandomTensor<float>({2, 3, 4, 4});
    if (c.bias_is_input) {
      b.AddInput("bias", DataType::kFloat32, c.bias_dims);
      inputs[1] = bias;
    } else {
      b.AddParameter("bias", bias);
    }
    b.AddParameter("w", RandomTensor<float>({4, 3, 3, 3}, -1, 1, 3));
    b.AddVar("c");
    b.AddVar("out");
    b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {"w"}}}, {{"Output", {"c"}}},
            {{"paddings", std::vector<int>{1, 1}}});
    b.AddOp("elementwise_add", {{"X", {"c"}}, {"Y", {"bias"}}},
            {{"Out", {"out"}}}, {{"axis", c.axis}});
    b.AddOutput("out");
    auto outcome = ApplyAndCompare(b, {"fuse_conv_bias"}, inputs);
    const size_t first = c.bias_is_input ? 2 : 1;
    if (c.fused) {
      EXPECT_EQ(outcome.program.blocks[0].ops.size(), 3u);
      EXPECT_EQ(OpAt(outcome, first).Input("Bias"), Types{"bias"});
      EXPECT_EQ(OpAt(outcome, first).Output("Output"), Types{"out"});
    } else {
      EXPECT_EQ(OpAt(outcome, first + 1).type, "elementwise_add");
      EXPECT_TRUE(outcome.changes.empty());
    }
  }
}

// conv2d_transpose: Cout is Filter.dims[1] * groups.
TEST(FuseConvBiasPass, FusesIntoConvTranspose) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 4, 3, 3});
  b.AddParameter("w", RandomTensor<float>({4, 3, 2, 2}, -1, 1, 3));
  b.AddParameter("bias", RandomTensor<float>({6}, -1, 1, 9));
  b.AddVar("c");
  b.AddVar("out");
  b.AddOp("conv2d_transpose", {{"Input", {x}}, {"Filter", {"w"}}},
          {{"Output", {"c"}}},
          {{"strides", std::vector<int>{2, 2}}, {"groups", 2}});
  b.AddOp("elementwise_add", {{"X", {"c"}}, {"Y", {"bias"}}},
          {{"Out", {"out"}}}, {{"axis", 1}});
  b.AddOutput("out");
  auto outcome = ApplyAndCompare(b, {"fuse_conv_bias"},
                                 {RandomTensor<float>({2, 4, 3, 3})});
  ASSERT_EQ(OpTypes(outcome.program),
            (Types{"feed", "conv2d_transpose", "fetch"}));
  EXPECT_EQ(OpAt(outcome, 1).Input("Bias"), Types{"bias"});
}

TEST(FuseConvBiasPass, KeepsAConvWithABias) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 3, 4, 4});
  b.AddParameter("w", RandomTensor<float>({2, 3, 1, 1}, -1, 1, 3));
  b.AddParameter("b0", RandomTensor<float>({2}, -1, 1, 4));
  b.AddParameter("b1", RandomTensor<float>({2}, -1, 1, 5));
  b.AddVar("c");
  b.AddVar("out");
  b.AddOp("depthwise_conv2d",
          {{"Input", {x}}, {"Filter", {"w"}}, {"Bias", {"b0"}}},
          {{"Output", {"c"}}});
  b.AddOp("elementwise_add", {{"X", {"c"}}, {"Y", {"b1"}}}, {{"Out", {"out"}}},
          {{"axis", 1}});
  b.AddOutput("out");
  auto outcome = ApplyAndCompare(b, {"fuse_conv_bias"},
                                 {RandomTensor<float>({1, 3, 4, 4})});
  EXPECT_EQ(OpTypes(outcome.program),
            (Types{"feed", "depthwise_conv2d", "elementwise_add", "fetch"}));
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
