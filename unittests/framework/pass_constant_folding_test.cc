// constant_folding: ops of constants run once at load; their outputs
// become persistable weights; fetched, fed and random things stay.
#include "unittests/framework/pass_test_util.h"

namespace paddle_lite {
namespace framework {
namespace {

using paddle_lite::testing::ExpectTensorNear;
using paddle_lite::testing::MakeTensor;
using paddle_lite::testing::RandomTensor;
using pass_testing::ApplyAndCompare;
using pass_testing::OpAt;
using pass_testing::OpTypes;

using Types = std::vector<std::string>;

TEST(ConstantFoldingPass, FoldsAChainOfWeightOps) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 2});
  b.AddParameter("w", MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}));
  b.AddVar("sw");
  b.AddVar("tw");
  b.AddVar("tw_shape");
  b.AddVar("out");
  b.AddOp("scale", {{"X", {"w"}}}, {{"Out", {"sw"}}},
          {{"scale", 2.0f}, {"bias", 1.0f}});
  b.AddOp("transpose2", {{"X", {"sw"}}},
          {{"Out", {"tw"}}, {"XShape", {"tw_shape"}}},
          {{"axis", std::vector<int>{1, 0}}});
  b.AddOp("matmul_v2", {{"X", {x}}, {"Y", {"tw"}}}, {{"Out", {"out"}}});
  b.AddOutput("out");
  auto outcome =
      ApplyAndCompare(b, {"constant_folding"}, {RandomTensor<float>({4, 2})});
  EXPECT_EQ(OpTypes(outcome.program), (Types{"feed", "matmul_v2", "fetch"}));
  ASSERT_EQ(outcome.changes.size(), 2u);
  // tw = transpose(2 * w + 1), a new persistable weight.
  const VarDesc* tw = outcome.program.blocks[0].FindVar("tw");
  ASSERT_NE(tw, nullptr);
  EXPECT_TRUE(tw->persistable);
  EXPECT_EQ(tw->dims, (DDim{2, 3}));
  ExpectTensorNear(outcome.weights->FindVar("tw")->Get<Tensor>(),
                   MakeTensor<float>({2, 3}, {3, 7, 11, 5, 9, 13}));
  // The intermediates are gone from the program.
  EXPECT_EQ(outcome.program.blocks[0].FindVar("sw"), nullptr);
  EXPECT_EQ(outcome.program.blocks[0].FindVar("tw_shape"), nullptr);
  // The original weight is unchanged.
  ExpectTensorNear(outcome.weights->FindVar("w")->Get<Tensor>(),
                   MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}));
}

TEST(ConstantFoldingPass, LeavesFetchedFedAndInputlessOps) {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 2});
  b.AddParameter("w", MakeTensor<float>({2}, {1, 2}));
  b.AddVar("fetched");
  b.AddVar("fed");
  b.AddVar("c");
  b.AddVar("sum");
  // Fetched: the output name is public, keep computing it.
  b.AddOp("scale", {{"X", {"w"}}}, {{"Out", {"fetched"}}}, {{"scale", 3.0f}});
  // Reads the input.
  b.AddOp("elementwise_add", {{"X", {x}}, {"Y", {"w"}}}, {{"Out", {"fed"}}});
  // No inputs.
  b.AddOp("fill_constant", {}, {{"Out", {"c"}}},
          {{"shape", std::vector<int64_t>{2}}, {"dtype", 5}, {"value", 1.5f}});
  b.AddOp("elementwise_add", {{"X", {"fed"}}, {"Y", {"c"}}},
          {{"Out", {"sum"}}});
  b.AddOutput("fetched");
  b.AddOutput("sum");
  auto outcome =
      ApplyAndCompare(b, {"constant_folding"}, {RandomTensor<float>({3, 2})});
  EXPECT_TRUE(outcome.changes.empty());
  EXPECT_EQ(OpTypes(outcome.program),
            (Types{"feed", "scale", "elementwise_add", "fill_constant",
                   "elementwise_add", "fetch", "fetch"}));
}

TEST(ConstantFoldingPass, LeavesAnOpThatFails) {
  // mul of mismatching weights fails at load; the error is left for the
  // run, where it names the op.
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 2});
  b.AddParameter("a", MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  b.AddParameter("c", MakeTensor<float>({2, 2}, {1, 2, 3, 4}));
  b.AddVar("p");
  b.AddVar("out");
  b.AddOp("mul", {{"X", {"a"}}, {"Y", {"c"}}}, {{"Out", {"p"}}});
  b.AddOp("elementwise_add", {{"X", {x}}, {"Y", {"p"}}}, {{"Out", {"out"}}});
  b.AddOutput("out");
  ProgramDesc program = b.Build();
  auto weights = pass_testing::CopyWeights(b);
  auto reports = ApplyPasses(&program, weights.get(), {"constant_folding"});
  EXPECT_TRUE(reports.at(0).changes.empty());
  EXPECT_EQ(OpTypes(program),
            (Types{"feed", "mul", "elementwise_add", "fetch"}));
  EXPECT_TRUE(weights->LocalVarNames().size() == 2u);
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
