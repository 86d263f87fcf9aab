// fold_batch_norm_into_conv: new folded weights (originals untouched), the
// same outputs, and no fold where it would change the result.
#include "unittests/framework/pass_test_util.h"

namespace paddle_lite {
namespace framework {
namespace {

using paddle_lite::testing::ExpectTensorNear;
using paddle_lite::testing::RandomTensor;
using pass_testing::ApplyAndCompare;
using pass_testing::OpAt;
using pass_testing::OpTypes;

using Types = std::vector<std::string>;

// Adds the four batch_norm parameters "<prefix>.scale" ... for `channels`
// and the op X -> Y.
void AddBatchNorm(ProgramBuilder* b,
                  const std::string& prefix,
                  int64_t channels,
                  const std::string& x,
                  const std::string& y,
                  AttributeMap attrs = {{"is_test", true}, {"epsilon", 1e-3f}},
                  uint32_t seed = 11) {
  b->AddParameter(prefix + ".scale",
                  RandomTensor<float>({channels}, 0.5, 2.0, seed));
  b->AddParameter(prefix + ".bias",
                  RandomTensor<float>({channels}, -1.0, 1.0, seed + 1));
  b->AddParameter(prefix + ".mean",
                  RandomTensor<float>({channels}, -0.5, 0.5, seed + 2));
  b->AddParameter(prefix + ".var",
                  RandomTensor<float>({channels}, 0.1, 3.0, seed + 3));
  b->AddVar(prefix + ".saved_mean");
  b->AddOp("batch_norm",
           {{"X", {x}},
            {"Scale", {prefix + ".scale"}},
            {"Bias", {prefix + ".bias"}},
            {"Mean", {prefix + ".mean"}},
            {"Variance", {prefix + ".var"}}},
           {{"Y", {y}},
            {"MeanOut", {prefix + ".mean"}},
            {"VarianceOut", {prefix + ".var"}},
            {"SavedMean", {prefix + ".saved_mean"}}},
           attrs);
}

AttributeMap Conv(int groups = 1) {
  return {{"strides", std::vector<int>{1, 1}},
          {"paddings", std::vector<int>{1, 1}},
          {"groups", groups}};
}

TEST(FoldBatchNormIntoConvPass, FoldsConvBatchNormRelu) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 3, 7, 6});
  const Tensor w = RandomTensor<float>({4, 3, 3, 3}, -1, 1, 3);
  b.AddParameter("w", w);
  b.AddVar("c");
  b.AddVar("y");
  b.AddVar("out");
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {"w"}}}, {{"Output", {"c"}}},
          Conv());
  AddBatchNorm(&b, "bn", 4, "c", "y");
  b.AddOp("relu", {{"X", {"y"}}}, {{"Out", {"out"}}});
  b.AddOutput("out");
  auto outcome = ApplyAndCompare(b, {"fold_batch_norm_into_conv"},
                                 {RandomTensor<float>({2, 3, 7, 6})});
  EXPECT_EQ(OpTypes(outcome.program),
            (Types{"feed", "conv2d", "relu", "fetch"}));
  const OpDesc& conv = OpAt(outcome, 1);
  EXPECT_EQ(conv.Input("Filter"), Types{"w@bn_folded"});
  EXPECT_EQ(conv.Input("Bias"), Types{"w@bn_folded_bias"});
  EXPECT_EQ(conv.Output("Output"), Types{"y"});
  // New persistable declarations; the original filter is unchanged.
  const VarDesc* folded = outcome.program.blocks[0].FindVar("w@bn_folded");
  ASSERT_NE(folded, nullptr);
  EXPECT_TRUE(folded->persistable);
  EXPECT_EQ(folded->dims, (DDim{4, 3, 3, 3}));
  const VarDesc* bias = outcome.program.blocks[0].FindVar("w@bn_folded_bias");
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->dims, (DDim{4}));
  ExpectTensorNear(outcome.weights->FindVar("w")->Get<Tensor>(), w, 0, 0);
  ASSERT_EQ(outcome.changes.size(), 1u);
  EXPECT_NE(outcome.changes[0].find("batch_norm #2 into conv2d #1"),
            std::string::npos)
      << outcome.changes[0];
}

// conv2d_transpose: the filter is [Cin, Cout / groups, KH, KW], so the
// scale of output channel g * (Cout / groups) + j applies to W[c, j] for
// the input channels c of group g; with a per-channel bias add between.
TEST(FoldBatchNormIntoConvPass, FoldsIntoConvTranspose) {
  for (int groups : {1, 2}) {
    SCOPED_TRACE("groups " + std::to_string(groups));
    ProgramBuilder b;
    auto x = b.AddInput("x", DataType::kFloat32, {-1, 4, 5, 6});
    b.AddParameter("w", RandomTensor<float>({4, 3, 2, 2}, -1, 1, 3));
    b.AddParameter("b", RandomTensor<float>({3 * groups}, -1, 1, 4));
    for (const char* v : {"c", "cb", "y"}) b.AddVar(v);
    b.AddOp("conv2d_transpose", {{"Input", {x}}, {"Filter", {"w"}}},
            {{"Output", {"c"}}},
            {{"strides", std::vector<int>{2, 2}}, {"groups", groups}});
    b.AddOp("elementwise_add", {{"X", {"c"}}, {"Y", {"b"}}}, {{"Out", {"cb"}}},
            {{"axis", 1}});
    AddBatchNorm(&b, "bn", 3 * groups, "cb", "y");
    b.AddOutput("y");
    auto outcome = ApplyAndCompare(b, {"fold_batch_norm_into_conv"},
                                   {RandomTensor<float>({2, 4, 5, 6})});
    ASSERT_EQ(OpTypes(outcome.program),
              (Types{"feed", "conv2d_transpose", "fetch"}));
    EXPECT_EQ(OpAt(outcome, 1).Input("Bias"), Types{"w@bn_folded_bias"});
  }
}

TEST(FoldBatchNormIntoConvPass, ConvWritesAFetchedBatchNormOutput) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 3, 5, 5});
  b.AddParameter("dw", RandomTensor<float>({6, 1, 3, 3}, -1, 1, 4));
  b.AddVar("c");
  b.AddVar("y");
  b.AddOp("depthwise_conv2d", {{"Input", {x}}, {"Filter", {"dw"}}},
          {{"Output", {"c"}}}, Conv(3));
  AddBatchNorm(&b, "bn", 6, "c", "y",
               {{"is_test", false}, {"use_global_stats", true}});
  b.AddOutput("y");
  auto outcome = ApplyAndCompare(b, {"fold_batch_norm_into_conv"},
                                 {RandomTensor<float>({1, 3, 5, 5})});
  EXPECT_EQ(OpTypes(outcome.program),
            (Types{"feed", "depthwise_conv2d", "fetch"}));
  EXPECT_EQ(OpAt(outcome, 1).Output("Output"), Types{"y"});
}

TEST(FoldBatchNormIntoConvPass, FoldsTheConvBias) {
  // A conv bias given as an elementwise_add (axis 1), or as Bias.
  for (bool as_input : {false, true}) {
    SCOPED_TRACE(as_input ? "Bias input" : "elementwise_add");
    ProgramBuilder b;
    auto x = b.AddInput("x", DataType::kFloat32, {-1, 2, 4, 4});
    b.AddParameter("w", RandomTensor<float>({3, 2, 3, 3}, -1, 1, 5));
    b.AddParameter("cb", RandomTensor<float>({3}, -1, 1, 6));
    b.AddVar("c");
    b.AddVar("cbias");
    b.AddVar("y");
    if (as_input) {
      b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {"w"}}, {"Bias", {"cb"}}},
              {{"Output", {"cbias"}}}, Conv());
    } else {
      b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {"w"}}},
              {{"Output", {"c"}}}, Conv());
      b.AddOp("elementwise_add", {{"X", {"c"}}, {"Y", {"cb"}}},
              {{"Out", {"cbias"}}}, {{"axis", 1}});
    }
    AddBatchNorm(&b, "bn", 3, "cbias", "y");
    b.AddOutput("y");
    auto outcome = ApplyAndCompare(b, {"fold_batch_norm_into_conv"},
                                   {RandomTensor<float>({2, 2, 4, 4})});
    EXPECT_EQ(OpTypes(outcome.program), (Types{"feed", "conv2d", "fetch"}));
  }
}

TEST(FoldBatchNormIntoConvPass, SharedFilterGetsTwoFoldedCopies) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 2, 4, 4});
  b.AddParameter("w", RandomTensor<float>({2, 2, 1, 1}, -1, 1, 5));
  for (const char* v : {"c1", "c2", "y1", "y2"}) b.AddVar(v);
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {"w"}}}, {{"Output", {"c1"}}});
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {"w"}}}, {{"Output", {"c2"}}});
  AddBatchNorm(&b, "bn1", 2, "c1", "y1", {{"is_test", true}}, 20);
  AddBatchNorm(&b, "bn2", 2, "c2", "y2", {{"is_test", true}}, 30);
  b.AddOutput("y1");
  b.AddOutput("y2");
  auto outcome = ApplyAndCompare(b, {"fold_batch_norm_into_conv"},
                                 {RandomTensor<float>({1, 2, 4, 4})});
  EXPECT_EQ(OpTypes(outcome.program),
            (Types{"feed", "conv2d", "conv2d", "fetch", "fetch"}));
  EXPECT_EQ(OpAt(outcome, 1).Input("Filter"), Types{"w@bn_folded"});
  EXPECT_EQ(OpAt(outcome, 2).Input("Filter"), Types{"w@bn_folded_1"});
}

TEST(FoldBatchNormIntoConvPass, LeavesWhatItCannotFold) {
  struct Case {
    const char* name;
    AttributeMap bn_attrs;
    bool second_reader;
    std::string data_format;
  };
  const Case cases[] = {
      {"batch statistics", {{"is_test", false}}, false, "NCHW"},
      {"trainable statistics",
       {{"is_test", true}, {"trainable_statistics", true}},
       false,
       "NCHW"},
      {"conv output read twice", {{"is_test", true}}, true, "NCHW"},
      {"NHWC",
       {{"is_test", true}, {"data_layout", std::string("NHWC")}},
       false,
       "NHWC"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ProgramBuilder b;
    const bool nhwc = c.data_format == "NHWC";
    auto x = b.AddInput("x", DataType::kFloat32,
                        nhwc ? DDim{-1, 4, 4, 2} : DDim{-1, 2, 4, 4});
    b.AddParameter("w", RandomTensor<float>({3, 2, 3, 3}, -1, 1, 5));
    b.AddVar("c");
    b.AddVar("y");
    b.AddVar("r");
    AttributeMap conv = Conv();
    conv["data_format"] = c.data_format;
    b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {"w"}}}, {{"Output", {"c"}}},
            conv);
    AddBatchNorm(&b, "bn", 3, "c", "y", c.bn_attrs);
    b.AddOutput("y");
    if (c.second_reader) {
      b.AddOp("relu", {{"X", {"c"}}}, {{"Out", {"r"}}});
      b.AddOutput("r");
    }
    // Batch statistics need a batch: feed 3 images.
    auto outcome = ApplyAndCompare(
        b, {"fold_batch_norm_into_conv"},
        {RandomTensor<float>(nhwc ? DDim{3, 4, 4, 2} : DDim{3, 2, 4, 4})});
    EXPECT_TRUE(outcome.changes.empty());
    EXPECT_EQ(OpTypes(outcome.program)[2], "batch_norm");
  }
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
