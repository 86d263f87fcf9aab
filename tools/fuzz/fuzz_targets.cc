#include "tools/fuzz/fuzz_targets.h"

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "framework/executor.h"
#include "framework/model_io.h"
#include "framework/npy.h"
#include "framework/pass.h"
#include "framework/program_io.h"
#include "framework/program_validator.h"
#include "framework/scope.h"
#include "platform/device_context.h"
#include "platform/enforce.h"
#include "tools/fuzz/program_mutator.h"

namespace paddle_lite {
namespace fuzz {
namespace {

namespace fw = framework;

// Small enough that a fuzzing run never waits on a big tensor.
constexpr size_t kMaxTensorBytes = size_t{16} << 20;
constexpr int64_t kMaxMadeUpElements = 1 << 20;

// Zeros of `dims` (-1 read as 2), or false when too large to make.
bool MakeUp(const fw::VarDesc& var, fw::Tensor* t) {
  fw::DDim dims = var.dims;
  int64_t n = 1;
  for (auto& d : dims) {
    if (d < 0) d = 2;
    if (__builtin_mul_overflow(n, d, &n) || n > kMaxMadeUpElements) {
      return false;
    }
  }
  t->Resize(dims);
  void* p = t->mutable_data(platform::CPUPlace{}, var.dtype);
  std::memset(p, 0, t->memory_size());
  return true;
}

void LoadValidateAndRun(const std::string& bytes) {
  fw::ProgramDesc program = fw::ParseProgramDesc(bytes, "<fuzz program>");
  fw::ValidateProgram(program, "<fuzz program>");
  auto weights = std::make_shared<fw::Scope>();
  for (auto& name : program.ParameterNames()) {
    const fw::VarDesc* var = program.blocks[0].FindVar(name);
    if (var == nullptr ||
        !MakeUp(*var, weights->Var(name)->GetMutable<fw::Tensor>())) {
      return;
    }
  }
  fw::ApplyPasses(&program, weights.get());
  platform::DeviceContextOptions context_options;
  context_options.num_threads = 1;
  platform::DeviceContextPool contexts(context_options);
  fw::ExecutorOptions options;
  options.max_tensor_bytes = kMaxTensorBytes;
  options.max_run_bytes = 4 * kMaxTensorBytes;
  // A loop whose condition never turns false ends quickly.
  options.max_loop_iterations = 100;
  fw::Executor executor(program, fw::KernelPreference{}, &contexts, options);
  fw::Scope& scope = weights->NewScope();
  try {
    std::vector<fw::Tensor> feeds;
    for (auto& name : program.FeedTargetNames()) {
      const fw::VarDesc* var = program.blocks[0].FindVar(name);
      feeds.emplace_back();
      if (var == nullptr || !MakeUp(*var, &feeds.back())) {
        weights->DeleteScope(&scope);
        return;
      }
    }
    *scope.Var("feed")->GetMutable<fw::TensorList>() = feeds;
    scope.Var("fetch")->GetMutable<fw::TensorList>();
    executor.Run(0, &scope);
  } catch (...) {
    weights->DeleteScope(&scope);
    throw;
  }
  weights->DeleteScope(&scope);
}

// The fixed program of the params fuzzer.
const fw::ProgramDesc& ParamsProgram() {
  static const fw::ProgramDesc program = [] {
    const char* dir = std::getenv("PDLITE_FUZZ_MODEL");
    fw::ModelFiles files = fw::ResolveModelFiles(
        dir ? dir : PDLITE_SOURCE_DIR "/models/demo_convnet");
    return fw::ParseProgramDesc(fw::ReadFileToString(files.program_file),
                                files.program_file);
  }();
  return program;
}

template <typename Fn>
void IgnoringCleanErrors(Fn&& fn) {
  try {
    fn();
  } catch (const Exception&) {
    // A clean, typed error is the expected end of most inputs.
  }
}

}  // namespace

void FuzzProgram(const uint8_t* data, size_t size) {
  IgnoringCleanErrors([&] {
    LoadValidateAndRun(std::string(reinterpret_cast<const char*>(data), size));
  });
}

void FuzzParams(const uint8_t* data, size_t size) {
  IgnoringCleanErrors([&] {
    fw::Scope scope;
    fw::LoadCombinedParams(
        ParamsProgram(), std::string(reinterpret_cast<const char*>(data), size),
        "<fuzz params>", &scope);
  });
}

void FuzzNpy(const uint8_t* data, size_t size) {
  IgnoringCleanErrors([&] {
    fw::ParseNpy(std::string(reinterpret_cast<const char*>(data), size),
                 "<fuzz npy>");
  });
}

size_t MutateProgramBytes(uint8_t* data,
                          size_t size,
                          size_t max_size,
                          unsigned int seed) {
  fw::ProgramDesc program;
  try {
    program = fw::ParseProgramDesc(
        std::string(reinterpret_cast<const char*>(data), size), "<mutator>");
  } catch (const Exception&) {
    return 0;  // not a program: nothing structured to mutate
  }
  std::mt19937_64 rng(seed);
  MutateProgram(&program, 1 + static_cast<int>(rng() % 3), &rng);
  const std::string out = fw::SerializeProgramDesc(program);
  if (out.size() > max_size) return 0;
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

}  // namespace fuzz
}  // namespace paddle_lite
