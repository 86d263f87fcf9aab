// fuse_inverted_residual: an expanding 1x1 convolution, a depthwise one
// and a projecting 1x1 one in a row become one fused_inverted_residual
// with the same results (each one's bias and activation, the residual and
// the depthwise window kept), from fused_conv2d ops and from plain
// conv2d / depthwise_conv2d ones alike; a map read elsewhere, swish, a
// dilated depthwise convolution and a strided 1x1 one keep the three ops.
#include "unittests/framework/pass_test_util.h"

namespace paddle_lite {
namespace framework {
namespace {

using paddle_lite::testing::RandomTensor;
using pass_testing::ApplyAndCompare;
using pass_testing::OpAt;
using pass_testing::OpTypes;

using Types = std::vector<std::string>;

struct Options {
  std::string conv_type = "fused_conv2d";
  std::string activation = "relu";  // the expansion's and the depthwise's
  AttributeMap depthwise;           // added to the depthwise op's
  AttributeMap project;             // added to the projection's
  bool fetch_expanded = false;
  bool residual = true;  // with fused_conv2d
};

// x [N, 8, 6, 6] -> 1x1 to 16 channels -> depthwise 3x3 (padding 1) ->
// 1x1 to 8 channels, plus x (fused_conv2d only, as fuse_conv_residual
// makes it).
ProgramBuilder Block(Options o = {}) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 8, 6, 6});
  b.AddParameter("f1", RandomTensor<float>({16, 8, 1, 1}, -1, 1, 1));
  b.AddParameter("b1", RandomTensor<float>({16}, -1, 1, 2));
  b.AddParameter("f2", RandomTensor<float>({16, 1, 3, 3}, -1, 1, 3));
  b.AddParameter("b2", RandomTensor<float>({16}, -1, 1, 4));
  b.AddParameter("f3", RandomTensor<float>({8, 16, 1, 1}, -1, 1, 5));
  b.AddVar("expanded", DataType::kFloat32, {-1, 16, 6, 6});
  b.AddVar("filtered", DataType::kFloat32, {-1, 16, 6, 6});
  b.AddVar("y", DataType::kFloat32, {-1, 8, -1, -1});
  const bool fused = o.conv_type == "fused_conv2d";
  AttributeMap act;
  if (fused) act["fuse_activation"] = o.activation;
  b.AddOp(o.conv_type, {{"Input", {x}}, {"Filter", {"f1"}}, {"Bias", {"b1"}}},
          {{"Output", {"expanded"}}}, act);
  AttributeMap window = o.depthwise;
  window["groups"] = 16;
  window.emplace("paddings", std::vector<int>{1, 1});
  if (fused) window["fuse_activation"] = o.activation;
  b.AddOp(fused ? o.conv_type : "depthwise_conv2d",
          {{"Input", {"expanded"}}, {"Filter", {"f2"}}, {"Bias", {"b2"}}},
          {{"Output", {"filtered"}}}, window);
  VarNameMap project_inputs = {{"Input", {"filtered"}}, {"Filter", {"f3"}}};
  if (fused && o.residual) project_inputs.push_back({"ResidualData", {x}});
  b.AddOp(o.conv_type, project_inputs, {{"Output", {"y"}}}, o.project);
  b.AddOutput("y");
  if (o.fetch_expanded) b.AddOutput("expanded");
  return b;
}

std::vector<Tensor> BlockInput() {
  return {RandomTensor<float>({2, 8, 6, 6}, -1, 1, 6)};
}

TEST(FuseInvertedResidualPass, ThreeConvolutionsBecomeOneOp) {
  Options o;
  o.activation = "hard_swish";
  o.depthwise["strides"] = std::vector<int>{1, 1};
  auto outcome =
      ApplyAndCompare(Block(o), {"fuse_inverted_residual"}, BlockInput());
  ASSERT_EQ(OpTypes(outcome.program),
            (Types{"feed", "fused_inverted_residual", "fetch"}));
  const OpDesc& fused = OpAt(outcome, 1);
  EXPECT_EQ(fused.Input("Input"), Types{"x"});
  EXPECT_EQ(fused.Input("Filter"), Types{"f1"});
  EXPECT_EQ(fused.Input("Bias"), Types{"b1"});
  EXPECT_EQ(fused.Input("DepthwiseFilter"), Types{"f2"});
  EXPECT_EQ(fused.Input("DepthwiseBias"), Types{"b2"});
  EXPECT_EQ(fused.Input("ProjectFilter"), Types{"f3"});
  EXPECT_TRUE(fused.Input("ProjectBias").empty());
  EXPECT_EQ(fused.Input("ResidualData"), Types{"x"});
  EXPECT_EQ(fused.Output("Output"), Types{"y"});
  EXPECT_EQ(AttrCast<int32_t>(fused.attrs.at("groups")), 16);
  EXPECT_EQ(AttrCast<std::vector<int32_t>>(fused.attrs.at("paddings")),
            (std::vector<int32_t>{1, 1}));
  EXPECT_EQ(AttrCast<std::string>(fused.attrs.at("fuse_activation")),
            "hard_swish");
  EXPECT_EQ(AttrCast<std::string>(fused.attrs.at("fuse_activation2")),
            "hard_swish");
  EXPECT_EQ(AttrCast<std::string>(fused.attrs.at("fuse_activation3")), "");
  EXPECT_EQ(outcome.program.FindVarRecursive(0, "expanded"), nullptr);
  EXPECT_EQ(outcome.program.FindVarRecursive(0, "filtered"), nullptr);
}

TEST(FuseInvertedResidualPass, PlainConvolutionOpsToo) {
  Options o;
  o.conv_type = "conv2d";
  auto outcome =
      ApplyAndCompare(Block(o), {"fuse_inverted_residual"}, BlockInput());
  ASSERT_EQ(OpTypes(outcome.program),
            (Types{"feed", "fused_inverted_residual", "fetch"}));
  EXPECT_TRUE(OpAt(outcome, 1).Input("ResidualData").empty());
}

TEST(FuseInvertedResidualPass, KeepsWhatIsNotABlock) {
  const Types kept = {"feed", "fused_conv2d", "fused_conv2d", "fused_conv2d",
                      "fetch"};
  auto unchanged = [&](const Options& o, const Types& types) {
    auto outcome =
        ApplyAndCompare(Block(o), {"fuse_inverted_residual"}, BlockInput());
    EXPECT_EQ(OpTypes(outcome.program), types);
    EXPECT_TRUE(outcome.changes.empty());
  };
  {
    SCOPED_TRACE("the expanded map fetched too");
    Options o;
    o.fetch_expanded = true;
    unchanged(o, {"feed", "fused_conv2d", "fused_conv2d", "fused_conv2d",
                  "fetch", "fetch"});
  }
  {
    SCOPED_TRACE("swish");
    Options o;
    o.activation = "swish";
    unchanged(o, kept);
  }
  {
    SCOPED_TRACE("a dilated depthwise convolution");
    Options o;
    o.depthwise["dilations"] = std::vector<int>{2, 2};
    o.depthwise["paddings"] = std::vector<int>{2, 2};
    unchanged(o, kept);
  }
  {
    SCOPED_TRACE("a strided projection");
    Options o;
    o.project["strides"] = std::vector<int>{2, 2};
    o.residual = false;  // it would not fit the output
    unchanged(o, kept);
  }
}

// A projection that writes the block's input in place (its residual): the
// fused op would overwrite input rows other threads' bands still expand.
TEST(FuseInvertedResidualPass, KeepsABlockThatWritesItsInput) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 8, 6, 6});
  b.AddParameter("f1", RandomTensor<float>({16, 8, 1, 1}, -1, 1, 1));
  b.AddParameter("f2", RandomTensor<float>({16, 1, 3, 3}, -1, 1, 3));
  b.AddParameter("f3", RandomTensor<float>({8, 16, 1, 1}, -1, 1, 5));
  b.AddVar("h", DataType::kFloat32, {-1, 8, 6, 6});
  b.AddVar("expanded", DataType::kFloat32, {-1, 16, 6, 6});
  b.AddVar("filtered", DataType::kFloat32, {-1, 16, 6, 6});
  b.AddOp("scale", {{"X", {x}}}, {{"Out", {"h"}}}, {{"scale", 2.0f}});
  b.AddOp("conv2d", {{"Input", {"h"}}, {"Filter", {"f1"}}},
          {{"Output", {"expanded"}}});
  b.AddOp("depthwise_conv2d", {{"Input", {"expanded"}}, {"Filter", {"f2"}}},
          {{"Output", {"filtered"}}},
          {{"groups", 16}, {"paddings", std::vector<int>{1, 1}}});
  b.AddOp(
      "fused_conv2d",
      {{"Input", {"filtered"}}, {"Filter", {"f3"}}, {"ResidualData", {"h"}}},
      {{"Output", {"h"}}});
  b.AddOutput("h");
  auto outcome = ApplyAndCompare(b, {"fuse_inverted_residual"}, BlockInput());
  EXPECT_EQ(OpTypes(outcome.program),
            (Types{"feed", "scale", "conv2d", "depthwise_conv2d",
                   "fused_conv2d", "fetch"}));
  EXPECT_TRUE(outcome.changes.empty());
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
