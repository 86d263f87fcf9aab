// fuse_upsample_concat_conv: a join of upsampled levels that only a 3x3
// convolution (stride and dilation 1, one group, 32 input and 16 output
// channels or more) reads becomes one fused_upsample_concat_conv2d with
// the same results, the convolution's bias and activation kept; a join
// also fetched, and convolutions our Winograd loops would not run, stay
// as they are.
#include <tuple>

#include "unittests/framework/pass_test_util.h"

namespace paddle_lite {
namespace framework {
namespace {

using paddle_lite::testing::RandomTensor;
using pass_testing::ApplyAndCompare;
using pass_testing::OpAt;
using pass_testing::OpTypes;

using Types = std::vector<std::string>;

struct HeadConv {
  DDim filter = {16, 48, 3, 3};
  std::vector<int> strides = {1, 1};
  bool fetch_join = false;
};

// x [N, 16, 8, 8]; a = pool(x), b = pool(a): a pyramid's levels, b and a
// upsampled back to 8x8, joined with x (48 channels), then a 3x3
// convolution with a bias and relu (conv2d, elementwise_add, relu, which
// the earlier passes fuse).
ProgramBuilder Head(const HeadConv& c) {
  ProgramBuilder b;
  const std::string x = b.AddInput("x", DataType::kFloat32, {-1, 16, 8, 8});
  for (const char* name : {"a", "b", "a2", "b4"}) {
    b.AddVar(name, DataType::kFloat32, {-1, 16, -1, -1});
  }
  for (const char* name : {"joined", "c", "cb", "y"}) {
    b.AddVar(name, DataType::kFloat32, {-1, -1, -1, -1});
  }
  b.AddParameter("w", RandomTensor<float>(c.filter, -1, 1, 1));
  b.AddParameter("bias", RandomTensor<float>({c.filter[0]}, -1, 1, 2));
  const AttributeMap pool = {{"pooling_type", std::string("avg")},
                             {"ksize", std::vector<int>{2, 2}},
                             {"strides", std::vector<int>{2, 2}}};
  b.AddOp("pool2d", {{"X", {x}}}, {{"Out", {"a"}}}, pool);
  b.AddOp("pool2d", {{"X", {"a"}}}, {{"Out", {"b"}}}, pool);
  for (auto [from, to, scale] :
       {std::tuple<const char*, const char*, float>{"b", "b4", 4.f},
        {"a", "a2", 2.f}}) {
    b.AddOp("nearest_interp_v2", {{"X", {from}}}, {{"Out", {to}}},
            {{"scale", std::vector<float>{scale, scale}},
             {"interp_method", std::string("nearest")},
             {"align_corners", false}});
  }
  b.AddOp("concat", {{"X", {"b4", "a2", x}}}, {{"Out", {"joined"}}},
          {{"axis", 1}});
  b.AddOp("conv2d", {{"Input", {"joined"}}, {"Filter", {"w"}}},
          {{"Output", {"c"}}},
          {{"strides", c.strides}, {"paddings", std::vector<int>{1, 1}}});
  b.AddOp("elementwise_add", {{"X", {"c"}}, {"Y", {"bias"}}}, {{"Out", {"cb"}}},
          {{"axis", 1}});
  b.AddOp("relu", {{"X", {"cb"}}}, {{"Out", {"y"}}});
  b.AddOutput("y");
  if (c.fetch_join) b.AddOutput("joined");
  return b;
}

const Types kPasses = {"fuse_conv_bias", "fuse_conv_activation",
                       "fuse_upsample_concat", "fuse_upsample_concat_conv"};

std::vector<Tensor> HeadInput() {
  return {RandomTensor<float>({2, 16, 8, 8}, -3, 3)};
}

TEST(FuseUpsampleConcatConvPass, TheJoinGoesIntoTheConvolution) {
  auto outcome = ApplyAndCompare(Head({}), kPasses, HeadInput());
  ASSERT_EQ(OpTypes(outcome.program),
            (Types{"feed", "pool2d", "pool2d", "fused_upsample_concat_conv2d",
                   "fetch"}));
  const OpDesc& fused = OpAt(outcome, 3);
  EXPECT_EQ(fused.Input("X"), (Types{"b", "a", "x"}));
  EXPECT_EQ(fused.Input("Filter"), Types{"w"});
  EXPECT_EQ(fused.Input("Bias").size(), 1u);
  EXPECT_EQ(fused.Output("Output"), Types{"y"});
  EXPECT_EQ(AttrCast<std::string>(fused.attrs.at("fuse_activation")), "relu");
  EXPECT_EQ(AttrCast<std::vector<float>>(fused.attrs.at("scale_h")),
            (std::vector<float>{4.f, 2.f, 1.f}));
  EXPECT_EQ(AttrCast<std::vector<int>>(fused.attrs.at("paddings")),
            (std::vector<int>{1, 1}));
  ASSERT_FALSE(outcome.changes.empty());
  EXPECT_NE(outcome.changes.back().find("'joined' gathered from the parts"),
            std::string::npos)
      << outcome.changes.back();
  EXPECT_EQ(outcome.program.FindVarRecursive(0, "joined"), nullptr);
}

TEST(FuseUpsampleConcatConvPass, KeepsWhatOurWinogradWouldNotRun) {
  auto kept = [](const HeadConv& c, const std::string& trace) {
    SCOPED_TRACE(trace);
    auto outcome = ApplyAndCompare(Head(c), kPasses, HeadInput());
    const Types types = OpTypes(outcome.program);
    EXPECT_EQ(types.at(3), "fused_upsample_concat");
    EXPECT_EQ(types.at(4), "fused_conv2d");
  };
  HeadConv fetched;
  fetched.fetch_join = true;
  kept(fetched, "the join fetched too");
  HeadConv strided;
  strided.strides = {2, 2};
  kept(strided, "stride 2");
  HeadConv narrow;
  narrow.filter = {8, 48, 3, 3};
  kept(narrow, "8 output channels");
  HeadConv pointwise;
  pointwise.filter = {16, 48, 1, 1};
  kept(pointwise, "a 1x1 window");
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
