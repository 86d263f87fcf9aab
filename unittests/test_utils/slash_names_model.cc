#include "unittests/test_utils/slash_names_model.h"

#include "framework/program_builder.h"

namespace paddle_lite {
namespace testing {

void SaveSlashNamesModel(const std::string& prefix) {
  framework::ProgramBuilder b;
  auto x = b.AddInput("x", framework::DataType::kFloat32, {-1, 3});
  for (auto [name, factor] : {std::pair{"a/b", 2.0f}, {"a__b", 3.0f}}) {
    b.AddVar(name);
    b.AddOp("scale", {{"X", {x}}}, {{"Out", {name}}},
            {{"scale", factor}, {"bias", 0.0f}, {"bias_after_scale", true}});
    b.AddOutput(name);
  }
  b.Save(prefix);
}

}  // namespace testing
}  // namespace paddle_lite
