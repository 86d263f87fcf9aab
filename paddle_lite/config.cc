#include <unistd.h>

#include <algorithm>

#include "paddle_lite/paddle_lite.h"
#include "platform/enforce.h"
#include "platform/place.h"

namespace paddle_lite {

Config::Config(const std::string& model_path) : model_path_(model_path) {}

Config::Config(const std::string& program_file, const std::string& params_file)
    : model_path_(program_file), params_file_(params_file) {}

void Config::SetModel(const std::string& model_path,
                      const std::string& params_file) {
  // Copied before anything changes: a copy that runs out of memory leaves
  // the config as it was.
  std::string path = model_path;
  std::string params = params_file;
  model_path_.swap(path);
  params_file_.swap(params);
  from_memory_ = false;
}

void Config::SetModelBuffer(const char* program,
                            size_t program_size,
                            const char* params,
                            size_t params_size) {
  std::string program_copy(program, program_size);
  std::string params_copy(params, params_size);
  program_buffer_.swap(program_copy);
  params_buffer_.swap(params_copy);
  from_memory_ = true;
}

namespace {

size_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return size_t{16} << 30;
  return static_cast<size_t>(pages) * static_cast<size_t>(page_size);
}

}  // namespace

size_t Config::max_tensor_bytes() const {
  return max_tensor_bytes_ ? max_tensor_bytes_ : PhysicalMemoryBytes() / 4;
}

size_t Config::max_run_bytes() const {
  return max_run_bytes_ ? max_run_bytes_ : PhysicalMemoryBytes() / 2;
}

void Config::SetCpuThreads(int threads) {
  PADDLE_ENFORCE(
      threads >= 1 && threads <= 1024,
      platform::errors::InvalidArgument("SetCpuThreads: ", threads,
                                        " threads is out of [1, 1024]."));
  cpu_threads_ = threads;
}

void Config::SetNarrowRunLimit(double ms) {
  PADDLE_ENFORCE(
      ms >= 0, platform::errors::InvalidArgument(
                   "SetNarrowRunLimit: ", ms, " ms; the limit must be >= 0."));
  narrow_run_ms_ = ms;
}

void Config::SetMaxLoopIterations(int64_t iterations) {
  PADDLE_ENFORCE(iterations >= 0,
                 platform::errors::InvalidArgument(
                     "SetMaxLoopIterations: ", iterations,
                     "; the limit must be >= 0 (0: no limit)."));
  max_loop_iterations_ = iterations;
}

void Config::SetDevice(const std::string& place) {
  device_ = platform::ParseRunPlace(place, "SetDevice").ToString();
  device_set_ = true;
}

void Config::SetKernelLibraries(std::vector<std::string> libraries) {
  libraries_ = std::move(libraries);
}

void Config::EnableMKLDNN(bool enable) {
  auto it = std::find(libraries_.begin(), libraries_.end(), "MKLDNN");
  if (enable && it == libraries_.end()) {
    libraries_.insert(libraries_.begin(), "MKLDNN");
  } else if (!enable && it != libraries_.end()) {
    libraries_.erase(it);
  }
}

bool Config::mkldnn_enabled() const {
  return std::find(libraries_.begin(), libraries_.end(), "MKLDNN") !=
         libraries_.end();
}

}  // namespace paddle_lite
