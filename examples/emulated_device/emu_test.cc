// Runs a model on the emu device through the public API and checks what
// the issue asks: ops with an emu kernel run there, the rest on the CPU,
// the copies between them are reported with their bytes (weights copied
// once, then reused), the tensors lived in the emu arena, and the result
// matches the CPU run and the reference.
//
//   emu_test PLUGIN.so MODEL_DIR REF_DIR   (REF_DIR/input_x.npy,
//                                           REF_DIR/expected_<output>.npy)
#include <dlfcn.h>

#include <cmath>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "framework/npy.h"
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

std::string SafeName(std::string name) {
  for (size_t p; (p = name.find('/')) != std::string::npos;) {
    name.replace(p, 1, "__");
  }
  return name;
}

// Runs the model on the inputs in ref_dir; returns the first output.
std::vector<float> RunOnce(paddle_lite::Predictor* predictor,
                           const std::string& ref_dir) {
  namespace fw = paddle_lite::framework;
  for (auto& name : predictor->GetInputNames()) {
    fw::Tensor value =
        fw::ReadNpy(ref_dir + "/input_" + SafeName(name) + ".npy");
    auto in = predictor->GetInputHandle(name);
    in->Reshape(value.dims());
    in->CopyFromCpu(value.data<float>());
  }
  predictor->Run();
  auto out = predictor->GetOutputHandle(predictor->GetOutputNames()[0]);
  int64_t n = 0;
  const float* data = out->data<float>(&n);
  return std::vector<float>(data, data + n);
}

double MaxDiff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::fabs(double(a[i]) - double(b[i])));
  }
  return worst;
}

template <typename Fn>
Fn PluginSymbol(const std::string& plugin, const char* name) {
  // The runtime loaded the plugin; RTLD_NOLOAD only finds it.
  void* handle = dlopen(plugin.c_str(), RTLD_NOW | RTLD_NOLOAD);
  return handle ? reinterpret_cast<Fn>(dlsym(handle, name)) : nullptr;
}

void PrintReport(const paddle_lite::Predictor& predictor) {
  std::map<std::string, int> per_place;
  for (auto& p : predictor.GetOpPlacement()) {
    if (!p.place.empty()) ++per_place[p.type + " on " + p.place];
  }
  std::cout << "placement:";
  for (auto& kv : per_place) std::cout << "  " << kv.first << " x" << kv.second;
  std::cout << "\n";
  size_t bytes = 0, cached = 0;
  auto copies = predictor.last_run_stats().copies;
  for (auto& c : copies) {
    bytes += c.bytes;
    cached += c.cached;
  }
  std::cout << "copies in the last run: " << copies.size() << " (" << bytes
            << " bytes; " << cached << " cached weight copies reused)\n";
}

// Checks one device predictor: placement, copies, arena use, results.
void CheckDeviceRun(const std::string& plugin,
                    const std::string& model,
                    const std::string& ref_dir,
                    bool ir_optim,
                    const std::vector<float>& cpu_result,
                    const std::vector<float>& expected) {
  std::cout << "--- emu:0, graph passes " << (ir_optim ? "on" : "off") << "\n";
  paddle_lite::Config config(model);
  config.LoadPlugin(plugin);
  config.SetDevice("emu:0");
  config.SwitchIrOptim(ir_optim);
  auto predictor = paddle_lite::CreatePredictor(config);

  const std::set<std::string> emu_ops = {"conv2d", "elementwise_add", "relu",
                                         "pool2d"};
  std::set<std::string> ran_on_emu;
  for (auto& p : predictor->GetOpPlacement()) {
    if (p.place.empty()) continue;  // feed, fetch: no kernel
    bool want_emu = emu_ops.count(p.type) > 0;
    EXPECT(p.place == (want_emu ? "emu:0" : "cpu"),
           "op #" << p.index << " " << p.type << " runs on " << p.place);
    if (p.place == "emu:0") ran_on_emu.insert(p.type);
  }
  // Without the passes every op the device has a kernel for is there as
  // saved; with them, fused convolutions leave some for the CPU.
  if (!ir_optim) {
    EXPECT(ran_on_emu == emu_ops, "all four emu ops ran on emu:0");
  }
  EXPECT(!ran_on_emu.empty(), "some op ran on emu:0");

  auto launches =
      PluginSymbol<int64_t (*)()>(plugin, "pdlite_emu_kernel_launches");
  auto peak = PluginSymbol<size_t (*)()>(plugin, "pdlite_emu_peak_bytes");
  EXPECT(launches && peak, "the plugin's counters are found");
  int64_t launches_before = launches ? launches() : 0;

  std::vector<float> first = RunOnce(predictor.get(), ref_dir);
  auto copies = predictor->last_run_stats().copies;
  EXPECT(!copies.empty(), "the first run copied tensors");
  for (auto& c : copies) {
    EXPECT(c.bytes > 0 && c.bytes % sizeof(float) == 0,
           "copy of " << c.var << " has " << c.bytes << " bytes");
    EXPECT((c.from == "cpu" && c.to == "emu:0") ||
               (c.from == "emu:0" && c.to == "cpu"),
           "copy of " << c.var << " goes " << c.from << " -> " << c.to);
    EXPECT(!c.cached, "nothing is cached on the first run");
  }
  std::vector<float> second = RunOnce(predictor.get(), ref_dir);
  size_t reused = 0;
  for (auto& c : predictor->last_run_stats().copies) reused += c.cached;
  EXPECT(reused > 0, "weights copied on the first run are reused");
  PrintReport(*predictor);

  if (launches) {
    EXPECT(launches() > launches_before, "emu kernels were launched");
    std::cout << "emu kernel launches: " << launches() - launches_before
              << "; arena peak " << (peak ? peak() : 0) << " bytes\n";
  }
  double vs_cpu = MaxDiff(first, cpu_result);
  double vs_ref = MaxDiff(first, expected);
  std::cout << "max |emu - cpu| " << vs_cpu << ", max |emu - expected| "
            << vs_ref << "\n";
  EXPECT(vs_cpu <= 1e-4, "emu matches the CPU run");
  EXPECT(vs_ref <= 1e-4, "emu matches the reference");
  EXPECT(MaxDiff(first, second) == 0, "two emu runs agree exactly");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: " << argv[0] << " PLUGIN.so MODEL_DIR REF_DIR\n";
    return 2;
  }
  const std::string plugin = argv[1], model = argv[2], ref_dir = argv[3];
  try {
    paddle_lite::Config cpu_config(model);
    auto cpu = paddle_lite::CreatePredictor(cpu_config);
    std::vector<float> cpu_result = RunOnce(cpu.get(), ref_dir);
    auto expected_tensor = paddle_lite::framework::ReadNpy(
        ref_dir + "/expected_" + SafeName(cpu->GetOutputNames()[0]) + ".npy");
    std::vector<float> expected(
        expected_tensor.data<float>(),
        expected_tensor.data<float>() + expected_tensor.numel());

    for (bool ir_optim : {false, true}) {
      CheckDeviceRun(plugin, model, ref_dir, ir_optim, cpu_result, expected);
      auto in_use =
          PluginSymbol<size_t (*)()>(plugin, "pdlite_emu_bytes_in_use");
      // The predictor is gone: every buffer it had on the device is back.
      EXPECT(in_use && in_use() == 0, "emu arena empty after the predictor, "
                                          << (in_use ? in_use() : 0)
                                          << " bytes in use");
    }
  } catch (const paddle_lite::Exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  if (failures) {
    std::cerr << failures << " check(s) failed\n";
    return 1;
  }
  std::cout << "emu_test: all checks passed\n";
  return 0;
}
