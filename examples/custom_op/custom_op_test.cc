// A model that uses an op the core lacks: builds a program file with
// my_scaled_tanh (framework::ProgramBuilder writes PaddlePaddle's format),
// shows that the runtime refuses it without the plugin, then runs it with
// the plugin loaded and checks every value.
//
//   custom_op_test PLUGIN.so WORK_DIR
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "framework/program_builder.h"
#include "paddle_lite/paddle_lite.h"

namespace {

int failures = 0;

#define EXPECT(cond, what)                                  \
  do {                                                      \
    if (!(cond)) {                                          \
      std::cerr << "FAILED: " << what << "  (" #cond ")\n"; \
      ++failures;                                           \
    }                                                       \
  } while (0)

namespace fw = paddle_lite::framework;

// x [-1, 5] -> my_scaled_tanh(scale = 0.5) -> t -> my_scaled_tanh (scale
// left out: the default 1.0) -> y. Returns the model prefix.
std::string SaveModel(const std::string& dir, float scale) {
  fw::ProgramBuilder b;
  auto x = b.AddInput("x", fw::DataType::kFloat32, {-1, 5});
  auto t = b.AddVar("t");
  auto y = b.AddVar("y");
  b.AddOp("my_scaled_tanh", {{"X", {x}}}, {{"Out", {t}}}, {{"scale", scale}});
  b.AddOp("my_scaled_tanh", {{"X", {t}}}, {{"Out", {y}}});
  b.AddOutput(y);
  std::string prefix = dir + "/scaled_tanh_" + std::to_string(scale);
  b.Save(prefix);
  return prefix;
}

std::vector<float> Run(const std::string& prefix,
                       const std::string& plugin,
                       const std::vector<float>& input) {
  paddle_lite::Config config(prefix + ".pdmodel", prefix + ".pdiparams");
  if (!plugin.empty()) config.LoadPlugin(plugin);
  auto predictor = paddle_lite::CreatePredictor(config);
  auto in = predictor->GetInputHandle("x");
  in->Reshape({static_cast<int64_t>(input.size() / 5), 5});
  in->CopyFromCpu(input.data());
  predictor->Run();
  auto out = predictor->GetOutputHandle(predictor->GetOutputNames()[0]);
  std::vector<float> result(input.size());
  out->CopyToCpu(result.data());
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " PLUGIN.so WORK_DIR\n";
    return 2;
  }
  const std::string plugin = argv[1], dir = argv[2];
  std::vector<float> input;
  for (int i = 0; i < 15; ++i) input.push_back(-3.5f + 0.5f * i);
  const std::string model = SaveModel(dir, 0.5f);

  // Without the plugin the op is unknown, and the error says which.
  try {
    Run(model, "", input);
    EXPECT(false, "a model with my_scaled_tanh runs without the plugin");
  } catch (const paddle_lite::Exception& e) {
    EXPECT(std::string(e.what()).find("my_scaled_tanh") != std::string::npos,
           "the error names the op: " << e.what());
    std::cout << "without the plugin: " << e.what() << "\n";
  }

  try {
    std::vector<float> got = Run(model, plugin, input);
    for (size_t i = 0; i < input.size(); ++i) {
      float want = std::tanh(1.0f * std::tanh(0.5f * input[i]));
      EXPECT(std::fabs(got[i] - want) <= 1e-6f,
             "y[" << i << "] = " << got[i] << ", expected " << want);
    }
    std::cout << "my_scaled_tanh ran: y[0] = " << got[0]
              << ", y[14] = " << got[14] << "\n";
  } catch (const paddle_lite::Exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }

  // The Maker's attribute check runs when the program is prepared.
  try {
    Run(SaveModel(dir, -1.0f), plugin, input);
    EXPECT(false, "scale = -1 is accepted");
  } catch (const paddle_lite::Exception& e) {
    EXPECT(e.code() == paddle_lite::ErrorCode::kInvalidArgument &&
               std::string(e.what()).find("'scale'") != std::string::npos,
           "scale = -1 is refused naming the attribute: " << e.what());
    std::cout << "scale = -1: " << e.what() << "\n";
  }

  if (failures) {
    std::cerr << failures << " check(s) failed\n";
    return 1;
  }
  std::cout << "custom_op_test: all checks passed\n";
  return 0;
}
