#include "unittests/test_utils/loop_model.h"

#include <fstream>

#include "framework/program_builder.h"
#include "framework/program_io.h"

namespace paddle_lite {
namespace testing {

std::string CountingLoopProgram() {
  using framework::DataType;
  framework::ProgramBuilder b;
  auto i = b.AddInput("i", DataType::kInt64, {1});
  auto n = b.AddInput("n", DataType::kInt64, {1});
  auto cond = b.AddVar("cond", DataType::kBool, {1});
  b.AddOp("less_than", {{"X", {i}}, {"Y", {n}}}, {{"Out", {cond}}});
  int body = b.AddBlock(0);
  b.AddOp("scale", {{"X", {i}}}, {{"Out", {i}}},
          {{"scale", 1.0f}, {"bias", 1.0f}}, body);
  b.AddOp("less_than", {{"X", {i}}, {"Y", {n}}}, {{"Out", {cond}}}, {}, body);
  b.AddOp("while", {{"X", {i, n}}, {"Condition", {cond}}}, {{"Out", {i}}},
          {{"sub_block", framework::BlockRef{body}}, {"is_test", true}});
  b.AddOutput(i);
  return framework::SerializeProgramDesc(b.Build());
}

void SaveCountingLoopModel(const std::string& prefix) {
  std::ofstream(prefix + ".pdmodel", std::ios::binary) << CountingLoopProgram();
  std::ofstream(prefix + ".pdiparams", std::ios::binary);
}

}  // namespace testing
}  // namespace paddle_lite
