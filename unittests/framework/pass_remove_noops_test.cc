// remove_noops: copies disappear, downgrade_in_infer dropout becomes a
// scale, fetched names stay, in-place writes and sub-blocks are respected.
#include "unittests/framework/pass_test_util.h"

namespace paddle_lite {
namespace framework {
namespace {

using paddle_lite::testing::RandomTensor;
using pass_testing::ApplyAndCompare;
using pass_testing::OpAt;
using pass_testing::OpTypes;

using Types = std::vector<std::string>;

AttributeMap Dropout(const std::string& implementation, float p) {
  return {{"dropout_prob", p},
          {"is_test", true},
          {"dropout_implementation", implementation}};
}

TEST(RemoveNoopsPass, RemovesCopiesAndKeepsTheFetchedName) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 5});
  b.AddVar("r");
  b.AddVar("d");
  b.AddVar("mask", DataType::kUInt8);
  b.AddVar("a");
  b.AddVar("dd");
  b.AddVar("save_infer_model/scale_0.tmp_0");
  b.AddOp("relu", {{"X", {x}}}, {{"Out", {"r"}}});
  b.AddOp("dropout", {{"X", {"r"}}}, {{"Out", {"d"}}, {"Mask", {"mask"}}},
          Dropout("upscale_in_train", 0.5f));
  b.AddOp("assign", {{"X", {"d"}}}, {{"Out", {"a"}}});
  b.AddOp("dropout", {{"X", {"a"}}}, {{"Out", {"dd"}}},
          Dropout("downgrade_in_infer", 0.25f));
  b.AddOp("scale", {{"X", {"dd"}}},
          {{"Out", {"save_infer_model/scale_0.tmp_0"}}},
          {{"scale", 1.0f}, {"bias", 0.0f}, {"bias_after_scale", true}});
  b.AddOutput("save_infer_model/scale_0.tmp_0");
  auto outcome = ApplyAndCompare(b, {"remove_noops"},
                                 {RandomTensor<float>({3, 5}, -1, 1, 7)});
  EXPECT_EQ(OpTypes(outcome.program),
            (Types{"feed", "relu", "scale", "fetch"}));
  // The dropout became scale 0.75, which now writes the fetched name.
  const OpDesc& scale = OpAt(outcome, 2);
  EXPECT_EQ(AttrCast<float>(scale.attrs.at("scale")), 0.75f);
  EXPECT_EQ(scale.Input("X"), Types{"r"});
  EXPECT_EQ(scale.Output("Out"), Types{"save_infer_model/scale_0.tmp_0"});
  EXPECT_EQ(outcome.changes.size(), 4u);
  // Unused declarations are gone.
  for (const char* gone : {"d", "mask", "a", "dd"}) {
    EXPECT_EQ(outcome.program.blocks[0].FindVar(gone), nullptr) << gone;
  }
}

TEST(RemoveNoopsPass, KeepsAFetchedCopyOfAFeed) {
  // x is public (fed) and so is y (fetched): neither can be renamed.
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 2});
  b.AddVar("y");
  b.AddOp("scale", {{"X", {x}}}, {{"Out", {"y"}}}, {{"scale", 1.0f}});
  b.AddOutput("y");
  auto outcome =
      ApplyAndCompare(b, {"remove_noops"}, {RandomTensor<float>({4, 2})});
  EXPECT_EQ(OpTypes(outcome.program), (Types{"feed", "scale", "fetch"}));
  EXPECT_TRUE(outcome.changes.empty());
}

TEST(RemoveNoopsPass, KeepsACopyOfAVariableWrittenLater) {
  // a = assign(r); then r is scaled in place: a must keep the old value.
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 3});
  b.AddVar("r");
  b.AddVar("a");
  b.AddVar("out");
  b.AddOp("relu", {{"X", {x}}}, {{"Out", {"r"}}});
  b.AddOp("assign", {{"X", {"r"}}}, {{"Out", {"a"}}});
  b.AddOp("scale", {{"X", {"r"}}}, {{"Out", {"r"}}}, {{"scale", 3.0f}});
  b.AddOp("elementwise_add", {{"X", {"a"}}, {"Y", {"r"}}}, {{"Out", {"out"}}});
  b.AddOutput("out");
  auto outcome =
      ApplyAndCompare(b, {"remove_noops"}, {RandomTensor<float>({2, 3})});
  EXPECT_EQ(OpTypes(outcome.program), (Types{"feed", "relu", "assign", "scale",
                                             "elementwise_add", "fetch"}));
}

TEST(RemoveNoopsPass, RemovesAnInPlaceCopy) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 3});
  b.AddVar("r");
  b.AddVar("out");
  b.AddOp("relu", {{"X", {x}}}, {{"Out", {"r"}}});
  b.AddOp("scale", {{"X", {"r"}}}, {{"Out", {"r"}}}, {{"scale", 1.0f}});
  b.AddOp("sigmoid", {{"X", {"r"}}}, {{"Out", {"out"}}});
  b.AddOutput("out");
  auto outcome =
      ApplyAndCompare(b, {"remove_noops"}, {RandomTensor<float>({2, 3})});
  EXPECT_EQ(OpTypes(outcome.program),
            (Types{"feed", "relu", "sigmoid", "fetch"}));
}

TEST(RemoveNoopsPass, KeepsScalesThatComputeAndSubBlockNames) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 3});
  b.AddParameter("s", paddle_lite::testing::MakeTensor<float>({1}, {2.0f}));
  for (const char* v : {"r", "biased", "tensor_scaled", "sub", "c", "out"}) {
    b.AddVar(v);
  }
  b.AddOp("relu", {{"X", {x}}}, {{"Out", {"r"}}});
  // scale 1 with a bias, and scale 1 overridden by a ScaleTensor.
  b.AddOp("scale", {{"X", {"r"}}}, {{"Out", {"biased"}}},
          {{"scale", 1.0f}, {"bias", 0.5f}});
  b.AddOp("scale", {{"X", {"biased"}}, {"ScaleTensor", {"s"}}},
          {{"Out", {"tensor_scaled"}}}, {{"scale", 1.0f}});
  // An assign whose output a sub-block reads.
  b.AddOp("assign", {{"X", {"tensor_scaled"}}}, {{"Out", {"sub"}}});
  const int sub = b.AddBlock(0);
  b.AddOp("relu", {{"X", {"sub"}}}, {{"Out", {"c"}}}, {}, sub);
  // A dropout whose probability rounds 1 - p to 1 is a copy.
  b.AddOp("dropout", {{"X", {"sub"}}}, {{"Out", {"out"}}},
          Dropout("downgrade_in_infer", 1e-9f));
  b.AddOp("sigmoid", {{"X", {"out"}}}, {{"Out", {"out"}}});
  b.AddOutput("out");
  auto outcome =
      ApplyAndCompare(b, {"remove_noops"}, {RandomTensor<float>({2, 3})});
  EXPECT_EQ(OpTypes(outcome.program),
            (Types{"feed", "relu", "scale", "scale", "assign", "dropout",
                   "sigmoid", "fetch"}))
      << "the dropout writes 'out', which sigmoid writes again";
}

TEST(RemoveNoopsPass, RemovesAZeroDropoutBeforeAnOp) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 3});
  b.AddVar("d");
  b.AddVar("out");
  b.AddOp("dropout", {{"X", {x}}}, {{"Out", {"d"}}},
          Dropout("downgrade_in_infer", 0.0f));
  b.AddOp("sigmoid", {{"X", {"d"}}}, {{"Out", {"out"}}});
  b.AddOutput("out");
  auto outcome =
      ApplyAndCompare(b, {"remove_noops"}, {RandomTensor<float>({2, 3})});
  EXPECT_EQ(OpTypes(outcome.program), (Types{"feed", "sigmoid", "fetch"}));
  EXPECT_EQ(OpAt(outcome, 1).Input("X"), Types{"x"});
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
