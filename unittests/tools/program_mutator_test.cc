// The hostile-program mutator (tools/fuzz/program_mutator.h) that the
// structure-aware fuzzer and pdlite_hostile use: each kind of edit it
// promises is seen to happen on a small program, as a change of the
// program itself (not only of its log), and survives the file round trip
// the fuzzer makes.
#include "tools/fuzz/program_mutator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "framework/program_io.h"

namespace paddle_lite {
namespace fuzz {
namespace {

using framework::Attribute;
using framework::AttrType;
using framework::AttrTypeName;
using framework::DataType;
using framework::OpDesc;
using framework::ProgramDesc;
using framework::TypeOf;
using framework::VarDesc;

VarDesc Var(const std::string& name,
            DataType dtype,
            framework::DDim dims,
            bool persistable = false) {
  VarDesc var;
  var.name = name;
  var.dtype = dtype;
  var.dims = std::move(dims);
  var.persistable = persistable;
  return var;
}

// x -> conv2d(w) -> y -> pool2d -> out, and an int64 `ids` of another rank
// and type for inputs to be renamed to.
ProgramDesc ConvPool() {
  ProgramDesc program;
  program.blocks.emplace_back();
  auto& block = program.blocks[0];
  block.vars = {Var("x", DataType::kFloat32, {-1, 3, 8, 8}),
                Var("w", DataType::kFloat32, {4, 3, 3, 3}, true),
                Var("y", DataType::kFloat32, {-1, 4, 8, 8}),
                Var("out", DataType::kFloat32, {-1, 4, 4, 4}),
                Var("ids", DataType::kInt64, {4})};
  OpDesc conv;
  conv.type = "conv2d";
  conv.inputs = {{"Input", {"x"}}, {"Filter", {"w"}}};
  conv.outputs = {{"Output", {"y"}}};
  conv.attrs = {{"groups", int32_t{1}},
                {"strides", std::vector<int32_t>{1, 1}},
                {"paddings", std::vector<int32_t>{1, 1}},
                {"padding_algorithm", std::string("EXPLICIT")}};
  OpDesc pool;
  pool.type = "pool2d";
  pool.inputs = {{"X", {"y"}}};
  pool.outputs = {{"Out", {"out"}}};
  pool.attrs = {{"ksize", std::vector<int32_t>{2, 2}},
                {"global_pooling", false},
                {"exclusive", int64_t{1}},
                {"scale", 0.5f}};
  block.ops = {conv, pool};
  return program;
}

bool IsList(AttrType type) {
  return type == AttrType::kInts || type == AttrType::kLongs ||
         type == AttrType::kFloats || type == AttrType::kFloat64s ||
         type == AttrType::kBooleans || type == AttrType::kStrings;
}

size_t ListSize(const Attribute& attr) {
  return std::visit(
      [](const auto& v) -> size_t {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::vector<int32_t>> ||
                      std::is_same_v<T, std::vector<int64_t>> ||
                      std::is_same_v<T, std::vector<float>> ||
                      std::is_same_v<T, std::vector<double>> ||
                      std::is_same_v<T, std::vector<bool>> ||
                      std::is_same_v<T, std::vector<std::string>>) {
          return v.size();
        } else {
          return 0;
        }
      },
      attr);
}

bool Has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::vector<std::string> AllArgs(const framework::VarNameMap& map) {
  std::vector<std::string> all;
  for (const auto& [slot, args] : map) {
    all.insert(all.end(), args.begin(), args.end());
  }
  return all;
}

// What changed from `before` to `after`, as facts the test looks for.
void Changes(const ProgramDesc& before,
             const ProgramDesc& after,
             std::set<std::string>* facts) {
  const auto& b0 = before.blocks[0];
  const auto& b1 = after.blocks[0];
  for (size_t i = 0; i < b0.ops.size(); ++i) {
    const OpDesc& op0 = b0.ops[i];
    const OpDesc& op1 = b1.ops[i];
    for (const auto& [name, value] : op0.attrs) {
      auto it = op1.attrs.find(name);
      if (it == op1.attrs.end()) {
        facts->insert("attribute removed");
        continue;
      }
      const AttrType from = TypeOf(value), to = TypeOf(it->second);
      if (from == to) {
        if (!(value == it->second)) facts->insert("attribute value");
        continue;
      }
      facts->insert(std::string(AttrTypeName(from)) + " as " +
                    AttrTypeName(to));
      if (!IsList(from) && IsList(to) && ListSize(it->second) == 1) {
        facts->insert("scalar as a one-element list");
      }
      if (IsList(to) && ListSize(it->second) == 0) facts->insert("empty list");
    }
    for (bool output : {false, true}) {
      const auto& slots0 = output ? op0.outputs : op0.inputs;
      const auto& slots1 = output ? op1.outputs : op1.inputs;
      for (size_t s = 0; s < slots0.size(); ++s) {
        const auto& args0 = slots0[s].second;
        const auto& args1 = slots1[s].second;
        if (args1.size() < args0.size()) facts->insert("argument dropped");
        if (args1.size() > args0.size()) {
          // The extra argument repeats one the slot had.
          for (const auto& arg : args1) ASSERT_TRUE(Has(args0, arg)) << arg;
          facts->insert("argument repeated");
        }
        if (args1.size() != args0.size()) continue;
        for (size_t a = 0; a < args0.size(); ++a) {
          if (args0[a] == args1[a]) continue;
          const VarDesc* var0 = b0.FindVar(args0[a]);
          const VarDesc* var1 = b0.FindVar(args1[a]);
          if (output && Has(AllArgs(op1.inputs), args1[a])) {
            facts->insert("output renamed to its own input");
          } else if (var1 == nullptr) {
            facts->insert(std::string(output ? "output" : "input") +
                          " renamed to an undeclared name");
          } else if (output) {
            facts->insert("output renamed to another var");
          } else if (var0->dtype != var1->dtype ||
                     var0->dims.size() != var1->dims.size()) {
            facts->insert("input renamed to a var of another rank or type");
          }
        }
      }
    }
  }
  for (size_t v = 0; v < b0.vars.size(); ++v) {
    const VarDesc& var0 = b0.vars[v];
    const VarDesc& var1 = b1.vars[v];
    if (var0.dims != var1.dims) facts->insert("var dim");
    if (var0.dtype != var1.dtype) facts->insert("var dtype");
    if (var0.persistable != var1.persistable) facts->insert("var persistable");
    if (var0.lod_level != var1.lod_level) facts->insert("var lod_level");
  }
}

TEST(ProgramMutator, EachKindOfEditHappens) {
  const ProgramDesc original = ConvPool();
  std::set<std::string> facts;
  for (uint64_t seed = 0; seed < 20000; ++seed) {
    ProgramDesc program = original;
    std::mt19937_64 rng(seed);
    const std::string log = MutateProgram(&program, 1, &rng);
    // One line per edit, saying where.
    ASSERT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;
    ASSERT_EQ(log.rfind("block 0 ", 0), 0u) << log;
    // What the fuzzer writes reads back as it was.
    const std::string bytes = framework::SerializeProgramDesc(program);
    ASSERT_EQ(framework::SerializeProgramDesc(
                  framework::ParseProgramDesc(bytes, "<mutated>")),
              bytes)
        << log;
    Changes(original, program, &facts);
    if (HasFailure()) return;
  }
  for (const char* fact : {
           // Hostile values, as before.
           "attribute value",
           "var dim",
           // Types: a conv's groups as FLOAT 0.0 or BOOLEAN false once
           // divided by zero.
           "INT as FLOAT",
           "INT as BOOLEAN",
           "INT as LONG",
           "LONG as INT",
           "FLOAT as INT",
           "BOOLEAN as INT",
           "STRING as INT",
           "INTS as FLOATS",
           "INTS as LONGS",
           "scalar as a one-element list",
           "empty list",
           "attribute removed",
           // Names: an op writing its own input overran the heap.
           "output renamed to its own input",
           "output renamed to another var",
           "output renamed to an undeclared name",
           "input renamed to a var of another rank or type",
           "argument dropped",
           "argument repeated",
           "var dtype",
           "var persistable",
           "var lod_level",
       }) {
    EXPECT_TRUE(facts.count(fact)) << "never seen: " << fact;
  }
}

TEST(ProgramMutator, TheLogNamesTheAliasedInput) {
  const ProgramDesc original = ConvPool();
  for (uint64_t seed = 0; seed < 20000; ++seed) {
    ProgramDesc program = original;
    std::mt19937_64 rng(seed);
    const std::string log = MutateProgram(&program, 1, &rng);
    if (program.blocks[0].ops[1].outputs[0].second[0] != "y") continue;
    EXPECT_EQ(log,
              "block 0 op #1 pool2d output Out[0]: out -> y (its input X)\n");
    return;
  }
  FAIL() << "pool2d's Out was never renamed to its input";
}

TEST(ProgramMutator, NothingToEditIsLeftAlone) {
  ProgramDesc program;
  program.blocks.emplace_back();
  std::mt19937_64 rng(1);
  EXPECT_EQ(MutateProgram(&program, 3, &rng), "");
  EXPECT_TRUE(program.blocks[0].ops.empty());
  EXPECT_TRUE(program.blocks[0].vars.empty());
}

}  // namespace
}  // namespace fuzz
}  // namespace paddle_lite
