// The default pass pipeline: every pass registered, in order, and together
// equivalent on a small network that exercises each of them.
#include "unittests/framework/pass_test_util.h"

namespace paddle_lite {
namespace framework {
namespace {

using paddle_lite::testing::RandomTensor;
using pass_testing::ApplyAndCompare;
using pass_testing::OpTypes;

using Types = std::vector<std::string>;

TEST(PassPipeline, EveryPassIsRegisteredInOrder) {
  Types names;
  for (const PassInfo* info : PassRegistry::Instance().All()) {
    names.push_back(info->name);
    EXPECT_NE(info->file.find("framework/passes/" + info->name + ".cc"),
              std::string::npos)
        << info->file;
  }
  EXPECT_EQ(
      names,
      (Types{"remove_noops", "constant_folding", "fold_batch_norm_into_conv",
             "fuse_conv_bias", "fold_affine_into_conv", "fuse_conv_residual",
             "fuse_conv_activation", "fuse_conv_upsample_add",
             "fuse_scaled_residual", "fuse_upsample_concat",
             "fuse_upsample_concat_conv", "fuse_upsample_add",
             "fuse_conv2d_transpose_pair", "fuse_inverted_residual", "fuse_fc",
             "fuse_elementwise_activation"}));
}

TEST(PassPipeline, SmallNetwork) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 3, 6, 6});
  b.AddParameter("conv.w", RandomTensor<float>({4, 3, 3, 3}, -1, 1, 1));
  b.AddParameter("conv.b", RandomTensor<float>({4}, -1, 1, 2));
  b.AddParameter("bn.scale", RandomTensor<float>({4}, 0.5, 2, 3));
  b.AddParameter("bn.bias", RandomTensor<float>({4}, -1, 1, 4));
  b.AddParameter("bn.mean", RandomTensor<float>({4}, -1, 1, 5));
  b.AddParameter("bn.var", RandomTensor<float>({4}, 0.5, 2, 6));
  b.AddParameter("fc.w_raw", RandomTensor<float>({16, 5}, -1, 1, 7));
  b.AddParameter("fc.b", RandomTensor<float>({5}, -1, 1, 8));
  for (const char* v : {"c", "cb", "bn", "act", "flat", "fc.w", "p", "s", "r",
                        "d", "save_infer_model/scale_0.tmp_0"}) {
    b.AddVar(v);
  }
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {"conv.w"}}},
          {{"Output", {"c"}}}, {{"strides", std::vector<int>{2, 2}}});
  b.AddOp("elementwise_add", {{"X", {"c"}}, {"Y", {"conv.b"}}},
          {{"Out", {"cb"}}}, {{"axis", 1}});
  b.AddOp("batch_norm",
          {{"X", {"cb"}},
           {"Scale", {"bn.scale"}},
           {"Bias", {"bn.bias"}},
           {"Mean", {"bn.mean"}},
           {"Variance", {"bn.var"}}},
          {{"Y", {"bn"}}}, {{"is_test", true}});
  b.AddOp("hard_swish", {{"X", {"bn"}}}, {{"Out", {"act"}}});
  b.AddOp("flatten_contiguous_range", {{"X", {"act"}}}, {{"Out", {"flat"}}},
          {{"start_axis", 1}, {"stop_axis", 3}});
  b.AddOp("scale", {{"X", {"fc.w_raw"}}}, {{"Out", {"fc.w"}}},
          {{"scale", 0.5f}});
  b.AddOp("mul", {{"X", {"flat"}}, {"Y", {"fc.w"}}}, {{"Out", {"p"}}});
  b.AddOp("elementwise_add", {{"X", {"p"}}, {"Y", {"fc.b"}}}, {{"Out", {"s"}}});
  b.AddOp("relu", {{"X", {"s"}}}, {{"Out", {"r"}}});
  b.AddOp("dropout", {{"X", {"r"}}}, {{"Out", {"d"}}},
          {{"dropout_implementation", std::string("upscale_in_train")}});
  b.AddOp("scale", {{"X", {"d"}}},
          {{"Out", {"save_infer_model/scale_0.tmp_0"}}}, {{"scale", 1.0f}});
  b.AddOutput("save_infer_model/scale_0.tmp_0");
  auto outcome =
      ApplyAndCompare(b, {}, {RandomTensor<float>({2, 3, 6, 6}, -2, 2, 9)});
  // The fc weight is computed from a weight (scale): constant_folding,
  // which runs before the fusions, makes it a constant, so fuse_fc takes
  // the mul with its bias add and relu.
  EXPECT_EQ(OpTypes(outcome.program),
            (Types{"feed", "fused_conv2d", "flatten_contiguous_range", "fc",
                   "fetch"}))
      << ::testing::PrintToString(outcome.changes);
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
