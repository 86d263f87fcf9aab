// fuse_conv2d_transpose_pair: two pixel-block deconvolutions in a row
// become one fused_conv2d_transpose_pair with the same results (each one's
// bias and activation kept); a map between them that is read elsewhere,
// padding, a stride other than the kernel and a computed filter keep the
// two ops.
#include "unittests/framework/pass_test_util.h"

namespace paddle_lite {
namespace framework {
namespace {

using paddle_lite::testing::RandomTensor;
using pass_testing::ApplyAndCompare;
using pass_testing::OpAt;
using pass_testing::OpTypes;

using Types = std::vector<std::string>;

// x [N, 4, 3, 3] -> deconv (6 channels, 2x2, relu) -> deconv (1 channel,
// 2x2, sigmoid); `first` adds attributes to the first.
ProgramBuilder Head(AttributeMap first = {}, bool fetch_between = false) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 4, 3, 3});
  b.AddParameter("f1", RandomTensor<float>({4, 6, 2, 2}, -1, 1, 1));
  b.AddParameter("b1", RandomTensor<float>({6}, -1, 1, 2));
  b.AddParameter("f2", RandomTensor<float>({6, 1, 2, 2}, -1, 1, 3));
  b.AddVar("between", DataType::kFloat32, {-1, 6, -1, -1});
  b.AddVar("map", DataType::kFloat32, {-1, 1, -1, -1});
  if (!first.count("strides")) first["strides"] = std::vector<int>{2, 2};
  first["fuse_activation"] = std::string("relu");
  b.AddOp("conv2d_transpose",
          {{"Input", {x}}, {"Filter", {"f1"}}, {"Bias", {"b1"}}},
          {{"Output", {"between"}}}, first);
  b.AddOp("conv2d_transpose", {{"Input", {"between"}}, {"Filter", {"f2"}}},
          {{"Output", {"map"}}},
          {{"strides", std::vector<int>{2, 2}},
           {"fuse_activation", std::string("sigmoid")}});
  b.AddOutput("map");
  if (fetch_between) b.AddOutput("between");
  return b;
}

std::vector<Tensor> PairInput() {
  return {RandomTensor<float>({2, 4, 3, 3}, -1, 1, 4)};
}

TEST(FuseConv2DTransposePairPass, TwoPixelBlocksBecomeOneOp) {
  auto outcome =
      ApplyAndCompare(Head(), {"fuse_conv2d_transpose_pair"}, PairInput());
  ASSERT_EQ(OpTypes(outcome.program),
            (Types{"feed", "fused_conv2d_transpose_pair", "fetch"}));
  const OpDesc& fused = OpAt(outcome, 1);
  EXPECT_EQ(fused.Input("Filter"), Types{"f1"});
  EXPECT_EQ(fused.Input("Bias"), Types{"b1"});
  EXPECT_EQ(fused.Input("Filter2"), Types{"f2"});
  EXPECT_TRUE(fused.Input("Bias2").empty());
  EXPECT_EQ(fused.Output("Output"), Types{"map"});
  EXPECT_EQ(AttrCast<std::string>(fused.attrs.at("fuse_activation")), "relu");
  EXPECT_EQ(AttrCast<std::string>(fused.attrs.at("fuse_activation2")),
            "sigmoid");
  EXPECT_EQ(outcome.program.FindVarRecursive(0, "between"), nullptr);
}

TEST(FuseConv2DTransposePairPass, KeepsWhatIsNotTwoPixelBlocks) {
  const Types kept = {"feed", "conv2d_transpose", "conv2d_transpose", "fetch"};
  auto unchanged = [&](const ProgramBuilder& b, const Types& types) {
    auto outcome =
        ApplyAndCompare(b, {"fuse_conv2d_transpose_pair"}, PairInput());
    EXPECT_EQ(OpTypes(outcome.program), types);
    EXPECT_TRUE(outcome.changes.empty());
  };
  {
    SCOPED_TRACE("the map between fetched too");
    unchanged(
        Head({}, /*fetch_between=*/true),
        {"feed", "conv2d_transpose", "conv2d_transpose", "fetch", "fetch"});
  }
  {
    SCOPED_TRACE("padding");
    unchanged(Head({{"paddings", std::vector<int>{1, 1}}}), kept);
  }
  {
    SCOPED_TRACE("a stride other than the kernel");
    unchanged(Head({{"strides", std::vector<int>{1, 1}}}), kept);
  }
  {
    SCOPED_TRACE("output_padding");
    unchanged(Head({{"strides", std::vector<int>{2, 2}},
                    {"output_padding", std::vector<int>{1, 1}}}),
              kept);
  }
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
