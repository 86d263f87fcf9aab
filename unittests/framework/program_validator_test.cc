// Load-time validation (issue 14): hostile attribute values and declared
// dims end in an InvalidArgument naming the op, its index, the attribute
// and the value, before any pass reads them; real values pass.
#include "framework/program_validator.h"

#include <gtest/gtest.h>

#include <climits>
#include <string>

#include "framework/model_io.h"
#include "framework/pass.h"
#include "framework/program_builder.h"
#include "framework/program_io.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace framework {
namespace {

using paddle_lite::testing::RandomTensor;

// x -> conv2d (+ bias through elementwise_add, axis 1) -> batch_norm ->
// pool2d -> out: the chain FoldBatchNormPass reads.
ProgramBuilder ConvAddBatchNormPool() {
  ProgramBuilder b;
  auto x = b.AddInput("x", DataType::kFloat32, {-1, 3, 8, 8});
  b.AddParameter("w", RandomTensor<float>({4, 3, 3, 3}, -1, 1, 1));
  b.AddParameter("bias", RandomTensor<float>({4}, -1, 1, 2));
  b.AddVar("c", DataType::kFloat32, {-1, 4, 8, 8});
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {"w"}}}, {{"Output", {"c"}}},
          {{"strides", std::vector<int>{1, 1}},
           {"paddings", std::vector<int>{1, 1}},
           {"dilations", std::vector<int>{1, 1}},
           {"groups", 1}});
  b.AddVar("a", DataType::kFloat32, {-1, 4, 8, 8});
  b.AddOp("elementwise_add", {{"X", {"c"}}, {"Y", {"bias"}}}, {{"Out", {"a"}}},
          {{"axis", 1}});
  b.AddParameter("bn.scale", RandomTensor<float>({4}, 0.5, 2, 3));
  b.AddParameter("bn.bias", RandomTensor<float>({4}, -1, 1, 4));
  b.AddParameter("bn.mean", RandomTensor<float>({4}, -1, 1, 5));
  b.AddParameter("bn.var", RandomTensor<float>({4}, 0.5, 2, 6));
  b.AddVar("y", DataType::kFloat32, {-1, 4, 8, 8});
  b.AddOp("batch_norm",
          {{"X", {"a"}},
           {"Scale", {"bn.scale"}},
           {"Bias", {"bn.bias"}},
           {"Mean", {"bn.mean"}},
           {"Variance", {"bn.var"}}},
          {{"Y", {"y"}}, {"MeanOut", {"bn.mean"}}, {"VarianceOut", {"bn.var"}}},
          {{"is_test", true}, {"epsilon", 1e-5f}});
  b.AddVar("out", DataType::kFloat32, {-1, 4, 4, 4});
  b.AddOp("pool2d", {{"X", {"y"}}}, {{"Out", {"out"}}},
          {{"pooling_type", std::string("max")},
           {"ksize", std::vector<int>{2, 2}},
           {"strides", std::vector<int>{2, 2}},
           {"paddings", std::vector<int>{0, 0}}});
  b.AddOutput("out");
  return b;
}

OpDesc& OpOfType(ProgramDesc* program, const std::string& type) {
  for (auto& op : program->blocks[0].ops) {
    if (op.type == type) return op;
  }
  ADD_FAILURE() << "no " << type;
  return program->blocks[0].ops[0];
}

// The InvalidArgument message of validating `program`, "" if it passes.
std::string ValidationError(const ProgramDesc& program) {
  try {
    ValidateProgram(program, "test.pdmodel");
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
    return e.what();
  }
  return "";
}

void ExpectRejected(const ProgramDesc& program,
                    const std::vector<std::string>& named) {
  const std::string error = ValidationError(program);
  ASSERT_FALSE(error.empty()) << "accepted";
  EXPECT_NE(error.find("test.pdmodel"), std::string::npos) << error;
  for (auto& part : named) {
    EXPECT_NE(error.find(part), std::string::npos)
        << "'" << part << "' missing from: " << error;
  }
}

TEST(ProgramValidator, AcceptsABuiltProgram) {
  EXPECT_EQ(ValidationError(ConvAddBatchNormPool().Build()), "");
}

TEST(ProgramValidator, AxisPastTheRankNamesOpIndexAndValue) {
  ProgramDesc program = ConvAddBatchNormPool().Build();
  OpOfType(&program, "elementwise_add").attrs["axis"] = INT_MAX;
  ExpectRejected(program, {"op 'elementwise_add' (#", "attribute 'axis'",
                           "2147483647", "declared [-1, 4, 8, 8]"});
}

TEST(ProgramValidator, WindowAttributesMustBePositive) {
  for (const char* attr : {"strides", "dilations"}) {
    ProgramDesc program = ConvAddBatchNormPool().Build();
    OpOfType(&program, "conv2d").attrs[attr] = std::vector<int>{1, 0};
    ExpectRejected(program, {"op 'conv2d'", attr, ">= 1"});
  }
  ProgramDesc program = ConvAddBatchNormPool().Build();
  OpOfType(&program, "conv2d").attrs["groups"] = INT_MIN;
  ExpectRejected(program, {"'groups'", "-2147483648"});
  program = ConvAddBatchNormPool().Build();
  OpOfType(&program, "pool2d").attrs["ksize"] = std::vector<int>{0, 2};
  ExpectRejected(program, {"op 'pool2d'", "'ksize'"});
  program = ConvAddBatchNormPool().Build();
  OpOfType(&program, "pool2d").attrs["paddings"] = std::vector<int>{-1, 0};
  ExpectRejected(program, {"'paddings'", ">= 0"});
}

// Kernels read window attributes as int (AttrCast): one stored as a
// float, a boolean or a 64-bit integer is checked as they read it, not
// skipped (a FLOAT 0.0 groups reached a modulo by zero: SIGFPE).
TEST(ProgramValidator, WindowAttributesOfOtherTypesAreCheckedAsRead) {
  const std::vector<std::pair<std::string, Attribute>> hostile = {
      {"groups", 0.0f},
      {"groups", 0.5},
      {"groups", false},
      {"groups", int64_t{1} << 32},
      {"strides", std::vector<float>{1.f, 0.5f}},
      {"dilations", std::vector<int64_t>{1, (int64_t{1} << 32) + 1}},
      {"dilations", std::vector<bool>{true, false}}};
  for (const auto& [attr, value] : hostile) {
    ProgramDesc program = ConvAddBatchNormPool().Build();
    OpOfType(&program, "conv2d").attrs[attr] = value;
    ExpectRejected(program, {"op 'conv2d'", "'" + attr + "'"});
  }
  // The same values as integers a kernel reads alike pass.
  ProgramDesc program = ConvAddBatchNormPool().Build();
  OpOfType(&program, "conv2d").attrs["groups"] = 1.0f;
  OpOfType(&program, "conv2d").attrs["strides"] = std::vector<double>{1, 1};
  EXPECT_EQ(ValidationError(program), "");
}

TEST(ProgramValidator, AbsurdPaddingsAndGroupsAgainstTheFilter) {
  ProgramDesc program = ConvAddBatchNormPool().Build();
  OpOfType(&program, "conv2d").attrs["paddings"] = std::vector<int>{1000000, 1};
  ExpectRejected(program, {"op 'conv2d'", "[1000000, 1]", "dilated filter"});
  program = ConvAddBatchNormPool().Build();
  OpOfType(&program, "pool2d").attrs["paddings"] = std::vector<int>{0, 3};
  ExpectRejected(program, {"op 'pool2d'", "pooling window"});
  program = ConvAddBatchNormPool().Build();
  OpOfType(&program, "conv2d").attrs["groups"] = 3;  // 4 filters
  ExpectRejected(program, {"'groups'", "must divide", "[4, 3, 3, 3]"});
  // SAME computes its own paddings: the given ones are not read.
  program = ConvAddBatchNormPool().Build();
  OpOfType(&program, "conv2d").attrs["paddings"] = std::vector<int>{1000000, 1};
  OpOfType(&program, "conv2d").attrs["padding_algorithm"] = std::string("SAME");
  EXPECT_EQ(ValidationError(program), "");
}

TEST(ProgramValidator, DeclaredDims) {
  ProgramDesc program = ConvAddBatchNormPool().Build();
  program.blocks[0].FindVar("c")->dims = {-1, INT_MIN, 8, 8};
  ExpectRejected(program, {"variable 'c'", "-2147483648"});
  program = ConvAddBatchNormPool().Build();
  program.blocks[0].FindVar("c")->dims = {INT64_MAX, INT64_MAX};
  ExpectRejected(program, {"variable 'c'", "overflows"});
  // Empty, but its other dims' product overflows (a kernel may form it).
  program = ConvAddBatchNormPool().Build();
  program.blocks[0].FindVar("c")->dims = {0, INT64_MAX, INT64_MAX};
  ExpectRejected(program, {"variable 'c'", "overflows"});
  program = ConvAddBatchNormPool().Build();
  program.blocks[0].FindVar("c")->dims = DDim(kMaxRank + 1, 1);
  ExpectRejected(program, {"variable 'c'", "at most 9"});
}

TEST(ProgramValidator, BlocksAndSubBlockReferences) {
  ProgramDesc program = ConvAddBatchNormPool().Build();
  program.blocks.push_back(BlockDesc());
  program.blocks[1].idx = 1;
  program.blocks[1].parent_idx = 1;  // its own parent: a lookup loop
  ExpectRejected(program, {"block 1", "parent block 1"});
  program.blocks[1].parent_idx = 0;
  EXPECT_EQ(ValidationError(program), "");
  OpOfType(&program, "pool2d").attrs["sub_block"] = BlockRef{7};
  ExpectRejected(program, {"'sub_block'", "block 7"});
  // A sub-block comes after the block of the op that runs it: an op of
  // block 1 that ran block 1 would run itself without end (and recurse
  // until the stack overflows). An unregistered op type, so that only the
  // block rules apply.
  OpOfType(&program, "pool2d").attrs.erase("sub_block");
  program.blocks.push_back(BlockDesc());
  program.blocks[2].idx = 2;
  program.blocks[2].parent_idx = 1;
  EXPECT_EQ(ValidationError(program), "");
  OpDesc runner;
  runner.type = "plugin_runner";
  runner.attrs["sub_block"] = BlockRef{1};
  program.blocks[1].ops.push_back(runner);
  ExpectRejected(
      program, {"'sub_block'", "block 1", "comes after the op's own block, 1"});
  program.blocks[1].ops[0].attrs["sub_block"] = std::vector<BlockRef>{{2}, {1}};
  ExpectRejected(program, {"block 1", "comes after the op's own block, 1"});
  program.blocks[1].ops[0].attrs["sub_block"] = BlockRef{2};
  EXPECT_EQ(ValidationError(program), "");
  // Run from the main block though its parent_idx says 1: taken (some of
  // Paddle's passes write every block's parent as 0, so it is not used).
  OpOfType(&program, "pool2d").attrs["sub_block"] = BlockRef{2};
  EXPECT_EQ(ValidationError(program), "");

  // A chain of blocks, each run by an op of the one before:
  // kMaxBlockDepth levels pass, one more does not.
  program = ConvAddBatchNormPool().Build();
  for (int b = 1; b <= kMaxBlockDepth + 1; ++b) {
    program.blocks.push_back(BlockDesc());
    program.blocks[b].idx = b;
    program.blocks[b].parent_idx = b - 1;
    OpDesc next;
    next.type = "plugin_runner";
    next.attrs["sub_block"] = BlockRef{b};
    program.blocks[b - 1].ops.push_back(next);
  }
  ExpectRejected(program, {"runs block 65", "65 levels below the main block",
                           "at most 64"});
  program.blocks[kMaxBlockDepth].ops.pop_back();
  program.blocks.pop_back();
  EXPECT_EQ(ValidationError(program), "");
}

TEST(ProgramValidator, FeedAndFetchColumns) {
  ProgramDesc program = ConvAddBatchNormPool().Build();
  OpOfType(&program, "fetch").attrs["col"] = INT_MAX;  // found by fuzzing
  ExpectRejected(program, {"'fetch'", "col values are not 0..0"});
  program = ConvAddBatchNormPool().Build();
  OpOfType(&program, "feed").attrs["col"] = -1;
  ExpectRejected(program, {"'feed'", "missing 0"});
  program = ConvAddBatchNormPool().Build();
  program.blocks.push_back(BlockDesc());
  program.blocks[1].idx = 1;
  program.blocks[1].parent_idx = 0;
  program.blocks[1].ops.push_back(OpOfType(&program, "fetch"));
  ExpectRejected(program, {"block 1 holds a 'fetch' op"});
}

TEST(ProgramValidator, LoadingRejectsBeforeThePasses) {
  ProgramBuilder b = ConvAddBatchNormPool();
  ProgramDesc program = b.Build();
  OpOfType(&program, "elementwise_add").attrs["axis"] = INT_MAX;
  std::string params;
  for (auto& name : program.ParameterNames()) {
    SerializeTensor(b.parameters().FindVar(name)->Get<Tensor>(), &params);
  }
  try {
    LoadModelFromBuffers(SerializeProgramDesc(program), params);
    FAIL() << "loaded";
  } catch (const Exception& e) {
    EXPECT_NE(std::string(e.what()).find("<program buffer>: op "
                                         "'elementwise_add'"),
              std::string::npos)
        << e.what();
  }
}

// The pass itself must not index with the value either (a program built
// in code skips the loader's checks).
TEST(ProgramValidator, FoldBatchNormSurvivesAHostileAxis) {
  ProgramBuilder b = ConvAddBatchNormPool();
  ProgramDesc program = b.Build();
  OpOfType(&program, "elementwise_add").attrs["axis"] = INT_MAX;
  Scope weights;
  for (auto& name : b.parameters().LocalVarNames()) {
    TensorCopy(b.parameters().FindVar(name)->Get<Tensor>(),
               platform::CPUPlace{}, weights.Var(name)->GetMutable<Tensor>());
  }
  ApplyPasses(&program, &weights, {}, platform::CPUPlace{});
  EXPECT_EQ(OpOfType(&program, "elementwise_add").type, "elementwise_add");
}

// Which weights a program writes: batch_norm's MeanOut and VarianceOut
// (extra outputs, never written) do not count; a scale writing a weight
// back onto itself does, and the passes then leave the program as it is.
TEST(ProgramValidator, WrittenWeightsAndThePassesSkipped) {
  ProgramBuilder b = ConvAddBatchNormPool();
  EXPECT_TRUE(WrittenWeights(b.Build()).empty());
  b.AddOp("scale", {{"X", {"bias"}}}, {{"Out", {"bias"}}}, {{"scale", 2.0f}});
  ProgramDesc program = b.Build();
  auto written = WrittenWeights(program);
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(written.begin()->first, "bias");
  EXPECT_NE(written.begin()->second.find("(scale), output Out"),
            std::string::npos)
      << written.begin()->second;
  // An unregistered op's outputs all count.
  OpDesc& scale = OpOfType(&program, "scale");
  scale.type = "not_an_op";
  scale.outputs = {{"Anything", {"w"}}};
  EXPECT_EQ(WrittenWeights(program).count("w"), 1u);
  EXPECT_EQ(WrittenWeights(program).count("bias"), 0u);

  // layer_norm writes its extra Mean; a view of a weight (reshape2) is no
  // write until an op writes the view; a sub-block's op writes block 0's
  // weight even where another block declares the name.
  {
    ProgramBuilder c = ConvAddBatchNormPool();
    c.AddVar("ln", DataType::kFloat32, {-1, 4, 8, 8});
    c.AddOp("layer_norm", {{"X", {"y"}}}, {{"Y", {"ln"}}, {"Mean", {"bias"}}},
            {{"begin_norm_axis", 1}});
    EXPECT_EQ(WrittenWeights(c.Build()).count("bias"), 1u);
  }
  {
    ProgramBuilder c = ConvAddBatchNormPool();
    c.AddVar("w_view");
    c.AddVar("w_shape");
    c.AddOp("reshape2", {{"X", {"w"}}},
            {{"Out", {"w_view"}}, {"XShape", {"w_shape"}}},
            {{"shape", std::vector<int>{4, 27}}});
    EXPECT_TRUE(WrittenWeights(c.Build()).empty());
    c.AddOp("scale", {{"X", {"w_view"}}}, {{"Out", {"w_view"}}},
            {{"scale", 2.0f}});
    auto viewed = WrittenWeights(c.Build());
    ASSERT_EQ(viewed.count("w"), 1u);
    EXPECT_NE(viewed["w"].find("'w_view', a view of it"), std::string::npos)
        << viewed["w"];
  }
  {
    ProgramBuilder c = ConvAddBatchNormPool();
    const int one = c.AddBlock(0);
    c.AddVar("bias", DataType::kFloat32, {4}, one);  // not persistable here
    const int two = c.AddBlock(one);
    c.AddOp("scale", {{"X", {"bias"}}}, {{"Out", {"bias"}}}, {{"scale", 2.0f}},
            two);
    EXPECT_EQ(WrittenWeights(c.Build()).count("bias"), 1u);
  }

  {
    // Many weights viewed into one name, then a chain of views of it
    // written at its end: every weight is written (and the walk is linear).
    ProgramBuilder c;
    c.AddInput("x", DataType::kFloat32, {-1, 4});
    const int kWeights = 50, kChain = 50;
    c.AddVar("v0");
    for (int i = 0; i < kWeights; ++i) {
      const std::string w = "fan" + std::to_string(i);
      c.AddParameter(w, RandomTensor<float>({4}, -1, 1, i));
      c.AddOp("reshape2", {{"X", {w}}}, {{"Out", {"v0"}}},
              {{"shape", std::vector<int>{1, 4}}});
    }
    for (int i = 1; i <= kChain; ++i) {
      const std::string v = "v" + std::to_string(i);
      c.AddVar(v);
      c.AddOp("reshape2", {{"X", {"v" + std::to_string(i - 1)}}},
              {{"Out", {v}}}, {{"shape", std::vector<int>{1, 4}}});
    }
    const std::string end = "v" + std::to_string(kChain);
    c.AddOp("scale", {{"X", {end}}}, {{"Out", {end}}}, {{"scale", 2.0f}});
    c.AddOutput(end);
    EXPECT_EQ(WrittenWeights(c.Build()).size(), static_cast<size_t>(kWeights));
  }

  program = b.Build();
  Scope weights;
  for (auto& name : b.parameters().LocalVarNames()) {
    TensorCopy(b.parameters().FindVar(name)->Get<Tensor>(),
               platform::CPUPlace{}, weights.Var(name)->GetMutable<Tensor>());
  }
  const size_t ops = program.blocks[0].ops.size();
  auto reports = ApplyPasses(&program, &weights, {}, platform::CPUPlace{});
  ASSERT_FALSE(reports.empty());
  for (auto& report : reports) {
    EXPECT_TRUE(report.skipped) << report.pass;
    ASSERT_EQ(report.changes.size(), 1u);
    EXPECT_NE(report.changes[0].find("writes its weight 'bias'"),
              std::string::npos)
        << report.changes[0];
  }
  EXPECT_EQ(program.blocks[0].ops.size(), ops);
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
