// `pdlite inspect`: what a model is and how it would run here.
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "framework/executor.h"
#include "framework/model_io.h"
#include "framework/pass.h"
#include "framework/plugin.h"
#include "framework/program_io.h"
#include "framework/program_validator.h"
#include "tools/pdlite/commands.h"
#include "tools/pdlite/flags.h"

namespace pdlite {

namespace fw = paddle_lite::framework;
namespace platform = paddle_lite::platform;

// The copies between places a run would make (tools/pdlite/plugins.cc).
void PrintCopyPlan(const fw::ProgramDesc& program,
                   const fw::PreparedBlock& block,
                   const platform::Place& preferred);

namespace {

void PrintVar(const fw::ProgramDesc& program,
              const std::string& name,
              int col) {
  std::cout << "  [" << col << "] " << name;
  if (auto* v = program.FindVarRecursive(0, name)) {
    std::cout << "  " << v->dtype << " " << v->dims;
    if (v->lod_level) std::cout << "  lod_level " << v->lod_level;
  }
  std::cout << "\n";
}

}  // namespace

void PrintGraphOutlook(fw::Executor& executor,
                       const fw::KernelPreference& preference);

int InspectCommand() {
  if (FLAGS_model.empty()) return Usage("inspect needs --model");
  try {
    auto files = fw::ResolveModelFiles(FLAGS_model, FLAGS_params);
    fw::ProgramDesc program = fw::ParseProgramDesc(
        fw::ReadFileToString(files.program_file), files.program_file);
    // As a load does, before anything walks the program (a block that is
    // its own parent would loop for ever).
    fw::ValidateProgram(program, files.program_file);
    std::cout << "program    " << files.program_file << "\n";
    std::cout << "params     "
              << (files.params_file.empty()
                      ? "one file per variable in " + files.params_dir
                      : files.params_file)
              << "\n";
    std::cout << "version    " << fw::VersionString(program.version) << "\n";
    std::cout << "op_version_map entries " << program.op_version_map.size()
              << "; blocks " << program.blocks.size() << "\n";
    if (FLAGS_passes) {
      // The passes read and add weights (batch-norm and constant folding);
      // what follows describes the optimized program.
      fw::Model model = fw::LoadModel(FLAGS_model, FLAGS_params);
      program = *model.program;
      std::cout << "passes (ops before -> after)\n";
      for (auto& report :
           fw::ApplyPasses(&program, model.weights.get(), {},
                           platform::ParsePlace(DeviceFromFlags()))) {
        std::cout << "  " << report.pass << ": " << report.ops_before << " -> "
                  << report.ops_after << "\n";
        for (auto& change : report.changes) {
          std::cout << "    " << change << "\n";
        }
      }
    }
    auto params = program.ParameterNames();
    int64_t param_bytes = 0;
    for (auto& name : params) {
      auto* v = program.blocks[0].FindVar(name);
      int64_t n = 1;
      for (auto d : v->dims) n *= d < 0 ? 0 : d;
      param_bytes += n * static_cast<int64_t>(fw::SizeOf(v->dtype));
    }
    std::cout << "parameters " << params.size() << " (" << param_bytes
              << " bytes declared)\n";
    auto feeds = program.FeedTargetNames();
    std::cout << "inputs\n";
    for (size_t i = 0; i < feeds.size(); ++i) PrintVar(program, feeds[i], i);
    auto fetches = program.FetchTargetNames();
    std::cout << "outputs\n";
    for (size_t i = 0; i < fetches.size(); ++i) {
      PrintVar(program, fetches[i], i);
    }

    fw::KernelPreference preference;
    preference.place = platform::ParsePlace(DeviceFromFlags());
    std::stringstream libs(FLAGS_libraries);
    std::string lib;
    while (std::getline(libs, lib, ',')) {
      if (!lib.empty() && lib != "PLAIN") {
        preference.libraries.push_back(fw::LibraryType::FromPreferredName(lib));
      }
    }
    platform::DeviceContextPool contexts(
        platform::DeviceContextOptions::WithThreads(FLAGS_threads));
    // A device nobody provides is an error; its hardware is not needed
    // (inspecting for cuda:0 works on a machine without a GPU).
    fw::EnsurePlaceAvailable(preference.place);
    fw::Executor executor(program, preference, &contexts);

    std::vector<std::string> missing;
    // Ops with a kernel, but not on the device asked for: they run on the
    // CPU, with copies (as `kernels --missing` lists them).
    std::vector<std::string> on_cpu;
    for (size_t b = 0; b < program.blocks.size(); ++b) {
      std::map<std::string, int> counts;
      for (auto& op : program.blocks[b].ops) ++counts[op.type];
      std::cout << "block " << b << ": " << program.blocks[b].ops.size()
                << " ops, " << counts.size() << " types\n ";
      for (auto& kv : counts) std::cout << " " << kv.first << "x" << kv.second;
      std::cout << "\n";
      const auto& prepared = executor.PrepareForInspection(static_cast<int>(b));
      std::cout << "kernels (block " << b << "): #index op -> expected key"
                << " => chosen key (why)\n";
      for (auto& p : prepared.ops) {
        std::cout << "  #" << std::setw(3) << std::left << p.index << std::right
                  << " ";
        if (!p.op) {
          std::cout << p.type << "  NONE (" << p.problem << ")\n";
          missing.push_back("block " + std::to_string(b) + " #" +
                            std::to_string(p.index) + " " + p.type +
                            " (op not registered)");
          continue;
        }
        std::cout << p.op->DebugLabel();
        if (!p.op->IsKernelOp()) {
          std::cout << "  runs without a kernel\n";
          continue;
        }
        std::cout << "  " << p.choice.expected.ToString() << " => ";
        if (p.choice.kernel) {
          std::cout << p.choice.chosen.ToString() << " (" << p.choice.reason
                    << ")\n";
          if (!platform::SameKind(p.choice.chosen.place, preference.place)) {
            on_cpu.push_back(
                "block " + std::to_string(b) + " #" + std::to_string(p.index) +
                " " + p.op->Type() + " (" +
                fw::DataTypeName(p.choice.expected.data_type) + ")");
          }
        } else {
          std::cout << "NONE (" << p.choice.reason << ")\n";
          missing.push_back(
              "block " + std::to_string(b) + " #" + std::to_string(p.index) +
              " " + p.op->Type() + " (" +
              fw::DataTypeName(p.choice.expected.data_type) + ")");
        }
      }
    }
    if (!preference.place.is_cpu()) {
      PrintCopyPlan(program, executor.PrepareForInspection(0),
                    preference.place);
    }
    if (preference.place.is_cuda()) PrintGraphOutlook(executor, preference);
    if (missing.empty() && on_cpu.empty()) {
      std::cout << "every op has a kernel on " << preference.place << "\n";
    }
    if (!on_cpu.empty()) {
      std::cout << on_cpu.size() << " op(s) have no kernel on "
                << preference.place << " and run on the CPU:\n";
      for (auto& m : on_cpu) std::cout << "  " << m << "\n";
    }
    if (!missing.empty()) {
      std::cout << missing.size() << " op(s) have no kernel on "
                << preference.place
                << (preference.place.is_cpu() ? "" : " or the CPU") << ":\n";
      for (auto& m : missing) std::cout << "  " << m << "\n";
    }
    return 0;
  } catch (const paddle_lite::Exception& e) {
    std::cerr << "pdlite: " << e.what() << "\n";
    return 1;
  }
}

// What can be told before running about replaying the main block as a
// CUDA graph (the executor decides per plan at run time).
void PrintGraphOutlook(fw::Executor& executor,
                       const fw::KernelPreference& preference) {
  const auto& block = executor.PrepareForInspection(0);
  for (auto& p : block.ops) {
    if (!p.op) continue;
    std::string why;
    if (!p.op->IsKernelOp() && p.type != "feed" && p.type != "fetch") {
      why = "runs without a kernel (control flow)";
    } else if (p.op->IsKernelOp() &&
               (!p.choice.kernel ||
                !platform::SameKind(p.choice.chosen.place, preference.place))) {
      why = "runs on the CPU";
    }
    if (!why.empty()) {
      std::cout << "CUDA graph replay: not possible: op #" << p.index << " "
                << p.type << " " << why << "\n";
      return;
    }
  }
  std::cout << "CUDA graph replay: every op runs on " << preference.place
            << "; a plan is captured on its second replay unless an op's "
               "shapes depend on input values or a kernel waits for the "
               "host (`run --report` says which)\n";
}

int KernelsCommand() {
  try {
    // Built-in devices in their own library (the CUDA place) are listed
    // too, whether or not this machine has the hardware.
    fw::LoadBuiltinDeviceLibraries();
  } catch (const paddle_lite::Exception& e) {
    std::cerr << "pdlite: " << e.what() << "\n";
    return 1;
  }
  auto& registry = fw::KernelRegistry::Instance();
  auto ops = registry.OpTypes();
  int shown = 0;
  for (auto& op : ops) {
    if (!FLAGS_op.empty() && op != FLAGS_op) continue;
    for (auto& kv : registry.KernelsOf(op)) {
      std::cout << op << "  " << kv.first.ToString() << "  " << kv.second->file
                << "  [" << kv.second->registrant << "]\n";
      ++shown;
    }
  }
  if (!FLAGS_op.empty() && shown == 0) {
    std::cerr << "pdlite: no kernel is registered for op '" << FLAGS_op
              << "'\n";
    return 1;
  }
  return 0;
}

}  // namespace pdlite
