#include "unittests/test_utils/half_model.h"

#include "framework/program_builder.h"

namespace paddle_lite {
namespace testing {

void SaveHalfPrecisionModel(const std::string& prefix) {
  using framework::DataType;
  framework::ProgramBuilder b;
  auto x16 = b.AddInput("x16", DataType::kFloat16, {-1, 3});
  auto xb16 = b.AddInput("xb16", DataType::kBFloat16, {-1, 3});
  // Casts name their types by VarType number, as Paddle's programs do.
  auto cast = [&](const std::string& in, DataType from, DataType to,
                  const std::string& out) {
    b.AddVar(out, to);
    b.AddOp("cast", {{"X", {in}}}, {{"Out", {out}}},
            {{"in_dtype", static_cast<int32_t>(from)},
             {"out_dtype", static_cast<int32_t>(to)}});
  };
  cast(x16, DataType::kFloat16, DataType::kFloat32, "x32");
  cast(xb16, DataType::kBFloat16, DataType::kFloat32, "xb32");
  b.AddVar("twice");
  b.AddOp("scale", {{"X", {"x32"}}}, {{"Out", {"twice"}}},
          {{"scale", 2.0f}, {"bias", 0.0f}, {"bias_after_scale", true}});
  b.AddVar("sum");
  b.AddOp("elementwise_add", {{"X", {"twice"}}, {"Y", {"xb32"}}},
          {{"Out", {"sum"}}}, {{"axis", -1}});
  cast("sum", DataType::kFloat32, DataType::kFloat16, "sum16");
  cast("sum", DataType::kFloat32, DataType::kBFloat16, "sumb16");
  b.AddOutput("sum");
  b.AddOutput("sum16");
  b.AddOutput("sumb16");
  b.Save(prefix);
}

}  // namespace testing
}  // namespace paddle_lite
