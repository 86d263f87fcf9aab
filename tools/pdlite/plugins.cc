// Plugins and devices in pdlite: loading --plugin libraries, choosing the
// device (--device, else PDLITE_DEVICE), `run --report` (where each op ran
// and what was copied), the copies `inspect` predicts, and
// `kernels --missing` (which ops of a model would fall back to the CPU).
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "framework/executor.h"
#include "framework/model_io.h"
#include "framework/plugin.h"
#include "framework/program_io.h"
#include "framework/program_validator.h"
#include "tools/pdlite/commands.h"
#include "tools/pdlite/flags.h"

DEFINE_bool(report,
            false,
            "`run`: print where each op ran and the copies of the last run");
DEFINE_bool(missing,
            false,
            "`kernels`: list the ops of --model without a kernel on "
            "--device (they fall back to the CPU)");

namespace pdlite {

namespace fw = paddle_lite::framework;
namespace platform = paddle_lite::platform;

int LoadPlugins(const std::vector<std::string>& specs) {
  try {
    fw::LoadPluginsFromEnvironment();
    for (auto& spec : specs) {
      std::stringstream paths(spec);
      std::string path;
      while (std::getline(paths, path, ',')) {
        if (!path.empty()) fw::LoadPlugin(path);
      }
    }
  } catch (const paddle_lite::Exception& e) {
    std::cerr << "pdlite: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

std::string DeviceFromFlags() {
  const char* env = std::getenv("PDLITE_DEVICE");
  bool given = !gflags::GetCommandLineFlagInfoOrDie("device").is_default;
  if (!given && env != nullptr && *env != '\0') return env;
  return FLAGS_device;
}

std::string DeviceProblem() {
  const std::string device = DeviceFromFlags();
  const bool from_env =
      gflags::GetCommandLineFlagInfoOrDie("device").is_default &&
      device != FLAGS_device;
  const char* source = from_env ? "PDLITE_DEVICE" : "--device";
  try {
    platform::ParsePlace(device);
  } catch (const paddle_lite::Exception& e) {
    return std::string(source) + ": " + e.message();
  }
  try {
    // A memory place, refused as the runtime refuses it.
    platform::ParseRunPlace(device, source);
  } catch (const paddle_lite::Exception& e) {
    return e.message();
  }
  return "";
}

std::string LibrariesProblem() {
  std::stringstream libs(FLAGS_libraries);
  std::string lib;
  while (std::getline(libs, lib, ',')) {
    if (lib.empty() || lib == "PLAIN") continue;
    try {
      fw::LibraryType::FromPreferredName(lib);
    } catch (const paddle_lite::Exception& e) {
      return "--libraries: " + e.message();
    }
  }
  return "";
}

fw::KernelPreference PreferenceFromFlags() {
  fw::KernelPreference preference;
  preference.place = platform::ParsePlace(DeviceFromFlags());
  std::stringstream libs(FLAGS_libraries);
  std::string lib;
  while (std::getline(libs, lib, ',')) {
    if (!lib.empty() && lib != "PLAIN") {
      preference.libraries.push_back(fw::LibraryType::FromPreferredName(lib));
    }
  }
  return preference;
}

void PrintRunReport(const paddle_lite::Predictor& predictor) {
  if (predictor.last_run_stats().ran_generic) {
    std::cout << "the run went to the generic kernels (every op on PLAIN, "
                 "cpu), as the first run of a small input does when the "
                 "predictor was not warmed up at load (Config::EnableWarmup, "
                 "Config::EnableGenericKernels; PDLITE_GENERIC_KERNELS=0 "
                 "keeps every run on the kernels below); later runs take "
                 "the placement below\n";
  }
  std::cout << "placement: #index op  place  library  (why)\n";
  std::map<std::string, std::map<std::string, int>> per_place;
  for (auto& p : predictor.GetOpPlacement()) {
    std::cout << "  #" << std::setw(3) << std::left << p.index << std::right
              << " " << p.type << "  ";
    if (p.place.empty()) {
      std::cout << "(no kernel)\n";
      continue;
    }
    std::cout << p.place << "  " << p.library;
    if (p.reason != "exact match") std::cout << "  (" << p.reason << ")";
    std::cout << "\n";
    ++per_place[p.place][p.type];
  }
  for (auto& place : per_place) {
    int total = 0;
    std::string types;
    for (auto& kv : place.second) {
      total += kv.second;
      types += " " + kv.first + "x" + std::to_string(kv.second);
    }
    std::cout << "on " << place.first << ": " << total << " ops:" << types
              << "\n";
  }
  auto copies = predictor.last_run_stats().copies;
  std::cout << "copies in the last run: #index op: variable  from -> to  "
               "bytes\n";
  size_t bytes = 0, reused = 0;
  for (auto& c : copies) {
    std::cout << "  #" << std::setw(3) << std::left << c.op_index << std::right
              << " " << c.op_type << ": copy " << c.var << "  " << c.from
              << " -> " << c.to << "  " << c.bytes << " bytes"
              << (c.cached ? "  (weight, copied by an earlier run)" : "")
              << "\n";
    bytes += c.bytes;
    reused += c.cached;
  }
  std::cout << copies.size() << " copies, " << bytes << " bytes";
  if (reused) std::cout << " (" << reused << " of them weights reused)";
  std::cout << "\n";
  const auto stats = predictor.last_run_stats();
  if (stats.graph_replayed) {
    std::cout << "the last run replayed its plan as one CUDA graph\n";
  } else if (!stats.graph_refusal.empty()) {
    std::cout << "not replayed as a CUDA graph: " << stats.graph_refusal
              << "\n";
  }
}

namespace {

// Bytes a variable's declaration implies, or -1 when a dim is unknown.
// Intermediates declared without dims (programs built in code) are
// unknown too, not scalars.
int64_t DeclaredBytes(const fw::VarDesc* var) {
  if (var == nullptr || (var->dims.empty() && !var->persistable)) return -1;
  int64_t n = 1;
  for (auto d : var->dims) {
    if (d < 0) return -1;
    n *= d;
  }
  return n * static_cast<int64_t>(fw::SizeOf(var->dtype));
}

// The place an op's kernel runs on: its kernel's kind, on the preferred
// device when the kinds agree (as the executor does).
platform::Place KernelPlace(const fw::PreparedOp& p,
                            const platform::Place& preferred) {
  platform::Place place = p.choice.chosen.place;
  return platform::SameKind(place, preferred) ? preferred : place;
}

}  // namespace

void PrintCopyPlan(const fw::ProgramDesc& program,
                   const fw::PreparedBlock& block,
                   const platform::Place& preferred) {
  // Where each variable lives: the place of the kernel that wrote it;
  // feeds and weights start on the CPU. Every op reading a variable from
  // another kind of place gets its own copy (weights: once, then reused).
  std::map<std::string, platform::Place> where;
  std::cout << "copies (block 0) on " << preferred
            << ": #index op: variable  from -> to  declared bytes\n";
  int count = 0, unknown = 0;
  int64_t bytes = 0;
  for (auto& p : block.ops) {
    if (!p.op) continue;
    platform::Place place = platform::CPUPlace{};
    if (p.op->IsKernelOp()) {
      if (!p.choice.kernel) continue;
      place = KernelPlace(p, preferred);
      for (auto& slot : p.op->Inputs()) {
        for (auto& name : slot.second) {
          const fw::VarDesc* var = program.FindVarRecursive(0, name);
          if (var != nullptr && !var->is_tensor()) continue;
          auto it = where.find(name);
          platform::Place from = it == where.end()
                                     ? platform::Place(platform::CPUPlace{})
                                     : it->second;
          if (platform::SameKind(from, place)) continue;
          int64_t n = DeclaredBytes(var);
          std::cout << "  #" << std::setw(3) << std::left << p.index
                    << std::right << " " << p.type << ": copy " << name << "  "
                    << from << " -> " << place << "  "
                    << (n < 0 ? std::string("?") : std::to_string(n))
                    << " bytes";
          if (n < 0 && var) std::cout << " (dims " << var->dims << ")";
          if (var && var->persistable) std::cout << "  (weight, copied once)";
          std::cout << "\n";
          ++count;
          if (n < 0) {
            ++unknown;
          } else {
            bytes += n;
          }
        }
      }
    }
    for (auto& slot : p.op->Outputs()) {
      for (auto& name : slot.second) where[name] = place;
    }
  }
  std::cout << count << " copies per run, " << bytes << " bytes";
  if (unknown) std::cout << " + " << unknown << " of sizes known at run time";
  std::cout << "\n";
}

int MissingKernelsCommand() {
  if (FLAGS_model.empty()) return Usage("kernels --missing needs --model");
  try {
    auto files = fw::ResolveModelFiles(FLAGS_model, FLAGS_params);
    fw::ProgramDesc program = fw::ParseProgramDesc(
        fw::ReadFileToString(files.program_file), files.program_file);
    // As a load does, before anything walks the program.
    fw::ValidateProgram(program, files.program_file);
    fw::KernelPreference preference = PreferenceFromFlags();
    platform::DeviceContextPool contexts(
        platform::DeviceContextOptions::WithThreads(1));
    // A device nobody provides is an error; its hardware is not needed
    // (inspecting for cuda:0 works on a machine without a GPU).
    fw::EnsurePlaceAvailable(preference.place);
    fw::Executor executor(program, preference, &contexts);
    // By (op type, data type): how many ops, and the fallback or the
    // reason there is none.
    struct Entry {
      int count = 0;
      std::string outcome;
    };
    std::map<std::string, Entry> fallback, on_device;
    for (size_t b = 0; b < program.blocks.size(); ++b) {
      for (auto& p : executor.PrepareForInspection(static_cast<int>(b)).ops) {
        if (p.op && !p.op->IsKernelOp()) continue;
        std::string key = p.type;
        if (p.op) {
          key += std::string(" (") +
                 fw::DataTypeName(p.choice.expected.data_type) + ")";
        }
        if (p.op && p.choice.kernel &&
            platform::SameKind(p.choice.chosen.place, preference.place)) {
          ++on_device[key].count;
          continue;
        }
        Entry& e = fallback[key];
        ++e.count;
        if (!p.op) {
          e.outcome = "no kernel anywhere: " + p.problem;
        } else if (p.choice.kernel) {
          e.outcome = "falls back to " + p.choice.chosen.ToString();
        } else {
          e.outcome = "no kernel anywhere: " + p.choice.reason;
        }
      }
    }
    std::cout << "ops of " << files.program_file << " without a kernel on "
              << preference.place << ":\n";
    int ops = 0;
    for (auto& kv : fallback) {
      std::cout << "  " << kv.first << " x" << kv.second.count << ": "
                << kv.second.outcome << "\n";
      ops += kv.second.count;
    }
    int device_ops = 0;
    std::string device_types;
    for (auto& kv : on_device) {
      device_ops += kv.second.count;
      device_types += "  " + kv.first + " x" + std::to_string(kv.second.count);
    }
    std::cout << fallback.size() << " op type(s), " << ops
              << " op(s) without a kernel on " << preference.place << "; "
              << device_ops << " op(s) run there:" << device_types << "\n";
    return 0;
  } catch (const paddle_lite::Exception& e) {
    std::cerr << "pdlite: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace pdlite
