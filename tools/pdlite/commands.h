// Subcommands of the pdlite tool. Each returns the process exit code:
// 0 success, 1 failure (the error is printed), 2 bad arguments, 3 outputs
// differ from --expected.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "paddle_lite/paddle_lite.h"

namespace pdlite {

/// Values of flags that may repeat (--input, --lod, --plugin), in order.
struct RepeatedFlags {
  std::vector<std::string> inputs;   // NAME=FILE.npy
  std::vector<std::string> lods;     // NAME=0,3,5[;0,1,3]
  std::vector<std::string> plugins;  // LIB.so[,LIB2.so]
};

/// Input files and LoDs by input name, from --input, --lod (and --inputs).
struct InputSpecs {
  std::map<std::string, std::string> files;
  std::map<std::string, paddle_lite::LoD> lods;
};
/// Returns 0, or the exit code after printing the problem.
int ParseInputSpecs(const RepeatedFlags& repeated, InputSpecs* specs);
/// A Config from --model, --params, --threads, --device, --libraries.
paddle_lite::Config ConfigFromFlags();
/// Reads the .npy inputs and feeds them; returns 0 or an exit code.
int FeedInputs(paddle_lite::Predictor* predictor, InputSpecs* specs);

int RunCommand(const RepeatedFlags& repeated);
int BenchCommand(const RepeatedFlags& repeated);
/// `bench --shapes` (tools/pdlite/bench_stream.cc).
int BenchStreamCommand();
int InspectCommand();
int KernelsCommand();

// Plugins and devices (tools/pdlite/plugins.cc).
/// Loads the plugins of PDLITE_PLUGIN_PATH and of every --plugin value
/// (comma-separated paths); returns 0 or 1 after printing the error.
int LoadPlugins(const std::vector<std::string>& specs);
/// --device when given, else PDLITE_DEVICE when set, else "cpu".
std::string DeviceFromFlags();
/// Why DeviceFromFlags() cannot name a device to run on ("" when it can):
/// not a place, or a place that is memory only (cuda_pinned).
std::string DeviceProblem();
/// Why --libraries names a library no kernel has ("" when none does);
/// after the plugins load, since they add libraries.
std::string LibrariesProblem();
/// `run --report`: where each op ran and the copies of the last run.
void PrintRunReport(const paddle_lite::Predictor& predictor);
/// `kernels --missing`: the ops of --model with no kernel on the device.
int MissingKernelsCommand();

/// `serve ARGS...`: replaces this process with the pdlite_server binary
/// beside this one (tools/pdlite/serve.cc); returns only on failure.
int ServeCommand(int argc, char** argv);

/// A field of /proc/self/status in MB ("VmHWM", "VmRSS").
double ProcStatusMb(const std::string& field);

/// Prints the usage text to stderr and returns 2.
int Usage(const std::string& problem);

/// Splits "NAME=VALUE"; returns false if there is no '=' or an empty side.
bool SplitAssignment(const std::string& text,
                     std::string* name,
                     std::string* value);

}  // namespace pdlite
