// pdlite: run, inspect and list kernels of PaddlePaddle models.
#include <gflags/gflags.h>
#include <glog/logging.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <map>
#include <new>
#include <set>

#include "tools/pdlite/commands.h"
#include "tools/pdlite/flags.h"

DEFINE_string(model, "", "model folder or program file");
DEFINE_string(params, "", "combined parameter file (optional)");
DEFINE_string(output_dir, "", "where `run` writes one .npy per output");
DEFINE_int32(threads, 1, "CPU threads of the predictor");
DEFINE_string(device, "cpu", "place to run on: cpu, cuda:0, <plugin>:N");
DEFINE_int64(gpu_mem_mb,
             0,
             "CUDA place: device memory limit in MiB (0: the device's)");
DEFINE_bool(tf32, false, "CUDA place: TF32 math for fp32 conv and matmul");
DEFINE_bool(cudnn_exhaustive_search,
            false,
            "CUDA place: time every cuDNN conv algorithm once per shape");
DEFINE_string(libraries,
              "MKLDNN",
              "comma-separated kernel libraries to prefer, best first "
              "(PLAIN is always the fallback; --libraries=PLAIN for the "
              "reference kernels only)");
DEFINE_string(expected,
              "",
              "folder of expected_<output>.npy files to compare with");
DEFINE_double(atol, 1e-4, "absolute tolerance for --expected");
DEFINE_double(rtol, 1e-3, "relative tolerance for --expected");
DEFINE_string(inputs,
              "",
              "`run`: folder of input_<name>.npy (+ .lod.txt) files");
DEFINE_string(op, "", "`kernels`: only this op type");
DEFINE_int32(warmup,
             5,
             "`bench`: untimed runs first (the first is timed "
             "as first_run_ms, and always made: 0 is 1)");
DEFINE_int32(iters, 20, "`bench`: timed runs");
DEFINE_string(shapes,
              "",
              "`bench`: a stream of input shapes, NAME=1x3x[320:928:32]x640 "
              "(';' between inputs) or @FILE with one sample per line");
DEFINE_int32(samples, 24, "`bench --shapes`: shapes drawn from the ranges");
DEFINE_int64(seed, 1, "`bench --shapes`: seed of the draw");
// `bench --passes N` (inspect's --passes is a switch): main() renames it.
DEFINE_int32(stream_passes, 10, "`bench --shapes`: times the stream runs");
DEFINE_int64(cache_mb,
             -1,
             "bytes of every cache of the predictor together, in MB "
             "(plans, arena, oneDNN primitives, weights, scratch); -1: "
             "the default");
DEFINE_int64(max_loop_iterations,
             int64_t{1} << 20,
             "`run`, `bench`: loop iterations one run may make, all its "
             "loops together (0: no limit)");
DEFINE_int64(max_tensor_mb,
             0,
             "`run`, `bench`: MB any one tensor may take (0: a quarter of "
             "physical memory)");
DEFINE_int64(max_run_mb,
             0,
             "`run`, `bench`: MB a run's tensors may take at once (0: half "
             "of physical memory)");
DEFINE_bool(json, false, "`bench`: print one JSON object");
DEFINE_bool(profile, false, "`bench`: time every op, by type and kernel");
DEFINE_int32(repeat, 1, "`run`: run this many times (checks each result)");
DEFINE_bool(passes,
            false,
            "`inspect`: apply the graph passes and show what each changed");
DEFINE_bool(ir_optim,
            true,
            "`run`, `bench`: apply the graph passes (--ir_optim=false "
            "runs the program as saved)");

namespace pdlite {

namespace {

void PrintUsage(std::ostream& out) {
  out <<
      R"(usage:
  pdlite run --model PATH [--params FILE] --input NAME=FILE.npy ...
             [--inputs DIR] [--lod NAME=0,3,5] [--output-dir DIR] [--threads N]
             [--device cpu|cuda:N] [--libraries MKLDNN,...]
             [--gpu_mem_mb M] [--tf32] [--cudnn_exhaustive_search]
             [--expected DIR [--atol 1e-4] [--rtol 1e-3]] [--repeat K]
             [--ir_optim=false] [--report]
  pdlite inspect --model PATH [--params FILE] [--threads N] [--device D]
                 [--libraries L] [--passes]
  pdlite bench --model PATH [--params FILE] --input NAME=FILE.npy ...
               [--inputs DIR] [--lod NAME=0,3,5] [--threads N]
               [--device D] [--libraries L] [--warmup 5] [--iters 20]
               [--json] [--profile]
  pdlite bench --model PATH [--params FILE] [--threads N] [--device D]
               [--libraries L] --shapes 'NAME=1x3x[320:928:32]x[320:928:32]'
               [--samples 24] [--seed 1] [--passes 10] [--json]
  pdlite kernels [--op OP]
  pdlite serve --model-repository DIR [--http-port 8000] [...]
  pdlite kernels --missing --model PATH [--params FILE] [--device D]
                 [--libraries L]
every command: [--plugin LIB.so[,LIB2.so]] (repeatable; also every .so in
         the folders of PDLITE_PLUGIN_PATH); the device defaults to
         PDLITE_DEVICE when --device is not given; [--v N] logs more
         (glog's verbosity). A flag another command takes is refused, and
         so is a flag where a value belongs: write --flag=VALUE for a
         value that starts with --.

run      runs the model on .npy inputs, prints each output's name, shape,
         dtype and statistics, and writes DIR/<output>.npy ('/' in names
         becomes '__', and names that would share a file are refused; a
         LoD output also gets <output>.lod.txt). With
         --expected it compares with DIR/expected_<output>.npy (integers
         exactly, an infinity only with itself) and exits 3 on a
         mismatch. --inputs DIR takes input_<name>.npy (and
         input_<name>.lod.txt, one level a line, unless --lod gives it)
         from DIR for every input not given.
         .npy has no bfloat16: a float32 .npy feeds a bfloat16 (or
         float16) input, rounded to it, and a bfloat16 output is written
         as float32.
         --report prints where each op ran (place, library) and every
         copy of the last run between places, with its bytes.
inspect  prints the program's version, inputs, outputs, op counts and the
         kernel chosen for every op, and lists every op without a kernel;
         on a device, also the copies between places with declared bytes.
bench    times load, the first run and --iters runs (min, median, p90,
         max, mean), peak RSS; --json prints one JSON object, with every
         timed run in samples_ms (what bench/vs_peers.py reads); --profile
         adds per-op time by op type and by chosen kernel. With --shapes
         it runs a stream of input shapes (random inputs) --passes times
         and prints per pass: total, median and worst latency, the
         latency of shapes seen for the first time and of shapes seen
         before, RSS and the bytes of each cache; then how much slower a
         shape's first sight is than its steady latency. Its inputs are
         random, in each input's type: floats in [-1, 1), integers and
         bools 0 or 1; a sequence input's rows are one sequence. --input,
         --inputs and --lod do not go with it, nor --samples and --seed
         with a shape file (@FILE).
run, bench: [--ir_optim=false], the CUDA place's [--gpu_mem_mb M] [--tf32]
         [--cudnn_exhaustive_search] (as for run) and [--cache_mb MB],
         which bounds all the predictor's caches together;
         [--max-loop-iterations N] (default 1048576, 0: none),
         [--max-tensor-mb MB] and [--max-run-mb MB] bound what one run of a
         hostile or broken model may do: past them the run fails naming
         the op or loop.
serve    serves every model of DIR over the Open Inference Protocol
         (KServe v2, HTTP/REST and gRPC); runs pdlite_server, installed beside
         pdlite (docs/serving.md; `pdlite serve --help`).
kernels  lists registered kernels: op, key, source file, registrant (core
         or the plugin's path); --missing lists the ops of a model that
         have no kernel on --device and fall back to the CPU.
)";
}

}  // namespace

int Usage(const std::string& problem) {
  if (!problem.empty()) std::cerr << "pdlite: " << problem << "\n\n";
  PrintUsage(std::cerr);
  return 2;
}

namespace {

// The flags `context` (a command, or a command and its mode) reads, by
// gflags name; none for an unknown command.
std::set<std::string> FlagsOf(const std::string& context) {
  // What ConfigFromFlags reads.
  const std::set<std::string> config = {"model",
                                        "params",
                                        "threads",
                                        "device",
                                        "libraries",
                                        "ir_optim",
                                        "cache_mb",
                                        "gpu_mem_mb",
                                        "tf32",
                                        "cudnn_exhaustive_search",
                                        "max_loop_iterations",
                                        "max_tensor_mb",
                                        "max_run_mb"};
  std::set<std::string> flags = {"v"};
  auto add = [&](const std::set<std::string>& more) {
    flags.insert(more.begin(), more.end());
  };
  if (context == "run") {
    add(config);
    add({"inputs", "output_dir", "expected", "atol", "rtol", "repeat",
         "report"});
  } else if (context == "bench") {
    add(config);
    add({"inputs", "warmup", "iters", "json", "profile"});
  } else if (context == "bench --shapes") {
    add(config);
    add({"shapes", "samples", "seed", "stream_passes", "json"});
  } else if (context == "inspect") {
    add({"model", "params", "threads", "device", "libraries", "passes"});
  } else if (context == "kernels") {
    add({"op", "missing"});
  } else if (context == "kernels --missing") {
    add({"missing", "model", "params", "device", "libraries"});
  } else {
    return {};
  }
  return flags;
}

int CheckFlagRanges() {
  struct Range {
    const char* flag;
    int64_t value, low, high;
    const char* note;
  };
  const int64_t kMaxMb = int64_t{1} << 30;  // 1 PB in MB: past any machine
  const int64_t kMaxCount = 100000000;
  // -1, --cache_mb's default, is in range too: it is checked apart.
  const int64_t cache_mb = FLAGS_cache_mb == -1 ? 1 : FLAGS_cache_mb;
  const Range ranges[] = {
      {"--threads", FLAGS_threads, 1, 1024, ""},
      {"--repeat", FLAGS_repeat, 1, kMaxCount, ""},
      {"--iters", FLAGS_iters, 1, kMaxCount, ""},
      {"--warmup", FLAGS_warmup, 0, kMaxCount, ""},
      {"--samples", FLAGS_samples, 1, 1000000, ""},
      {"--passes", FLAGS_stream_passes, 1, 1000000, ""},
      {"--cache_mb", cache_mb, 1, kMaxMb, " (or -1, the default)"},
      {"--gpu_mem_mb", FLAGS_gpu_mem_mb, 0, kMaxMb, " (0: the device's)"},
      {"--max-loop-iterations", FLAGS_max_loop_iterations, 0, INT64_MAX,
       " (0: no limit)"},
      {"--max-tensor-mb", FLAGS_max_tensor_mb, 0, kMaxMb, " (0: the default)"},
      {"--max-run-mb", FLAGS_max_run_mb, 0, kMaxMb, " (0: the default)"},
  };
  for (const Range& r : ranges) {
    if (r.value < r.low || r.value > r.high) {
      return Usage(std::string(r.flag) + " must be in [" +
                   std::to_string(r.low) + ", " + std::to_string(r.high) + "]" +
                   r.note);
    }
  }
  for (auto [flag, value] : {std::make_pair("--atol", FLAGS_atol),
                             std::make_pair("--rtol", FLAGS_rtol)}) {
    if (!std::isfinite(value) || value < 0) {
      return Usage(std::string(flag) + " must be a finite number >= 0");
    }
  }
  return 0;
}

}  // namespace

bool SplitAssignment(const std::string& text,
                     std::string* name,
                     std::string* value) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    return false;
  }
  *name = text.substr(0, eq);
  *value = text.substr(eq + 1);
  return true;
}

}  // namespace pdlite

namespace {

// Why `flag` (argv[i]) has no value after it, as a usage message; "" when
// it has one. A flag in the value's place is a value left out
// (`--output-dir --report` had made a folder named --report): a value that
// starts with "--" is given as --flag=VALUE. "-1" and "-" are values.
std::string MissingValue(const std::string& flag,
                         int argc,
                         char** argv,
                         int i) {
  if (i + 1 >= argc) return flag + " needs a value";
  if (std::strncmp(argv[i + 1], "--", 2) != 0) return "";
  return flag + " needs a value, got the flag '" + argv[i + 1] + "' (write " +
         flag + "=VALUE for a value that starts with --)";
}

}  // namespace

int main(int argc, char** argv) {
  FLAGS_logtostderr = true;
  google::InitGoogleLogging(argv[0]);
  if (argc < 2) return pdlite::Usage("");
  std::string command = argv[1];
  if (command == "-h" || command == "--help" || command == "help") {
    pdlite::PrintUsage(std::cout);
    return 0;
  }
  // The server's flags are its own (pdlite_server --help).
  if (command == "serve") return pdlite::ServeCommand(argc - 2, argv + 2);
  // --input, --lod and --plugin may repeat, which gflags cannot express:
  // take them out before gflags sees the rest, and reject unknown flags
  // with exit 2.
  pdlite::RepeatedFlags repeated;
  // The flags given, by gflags name, as typed (for messages).
  std::map<std::string, std::string> given;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    for (const char* name : {"--input", "--lod", "--plugin"}) {
      std::string flag = name;
      auto* target = flag == "--input" ? &repeated.inputs
                     : flag == "--lod" ? &repeated.lods
                                       : &repeated.plugins;
      if (arg == flag) {
        const std::string missing = MissingValue(flag, argc, argv, i);
        if (!missing.empty()) return pdlite::Usage(missing);
        target->push_back(argv[++i]);
        arg.clear();
        break;
      }
      if (arg.rfind(flag + "=", 0) == 0) {
        target->push_back(arg.substr(flag.size() + 1));
        arg.clear();
        break;
      }
    }
    if (arg.empty()) continue;
    if (arg == "-h" || arg == "--help") {
      pdlite::PrintUsage(std::cout);
      return 0;
    }
    if (arg.rfind("--", 0) != 0) {
      return pdlite::Usage("unexpected argument '" + arg + "'");
    }
    std::string name = arg.substr(2, arg.find('=') - 2);
    std::replace(name.begin(), name.end(), '-', '_');  // --output-dir too
    if (command == "bench" && name == "passes") name = "stream_passes";
    gflags::CommandLineFlagInfo info;
    // Only this tool's flags (and glog's -v): not the rest of glog's.
    if (!gflags::GetCommandLineFlagInfo(name.c_str(), &info) ||
        (info.filename.find("pdlite") == std::string::npos && name != "v")) {
      return pdlite::Usage("unknown flag '--" + name + "'");
    }
    std::string value;
    if (arg.find('=') != std::string::npos) {
      value = arg.substr(arg.find('=') + 1);
    } else if (info.type == "bool") {
      value = "true";
    } else {
      const std::string missing = MissingValue(arg, argc, argv, i);
      if (!missing.empty()) return pdlite::Usage(missing);
      value = argv[++i];
    }
    // gflags checks the value's form here (ParseCommandLineFlags would
    // exit 1 on its own with gflags' message).
    const std::string shown = "--" + arg.substr(2, arg.find('=') - 2);
    if (gflags::SetCommandLineOption(name.c_str(), value.c_str()).empty()) {
      return pdlite::Usage(shown + " takes " +
                           (info.type == "bool"
                                ? std::string("true or false")
                                : "a value of type " + info.type) +
                           ", got '" + value + "'");
    }
    given[name] = shown;
  }
  // A flag of another command is refused rather than ignored.
  const std::string context =
      command == "bench" && given.count("shapes") ? "bench --shapes"
      : command == "kernels" && FLAGS_missing     ? "kernels --missing"
                                                  : command;
  const auto allowed = pdlite::FlagsOf(context);
  if (allowed.empty()) {
    return pdlite::Usage("unknown command '" + command + "'");
  }
  for (const auto& [name, shown] : given) {
    if (!allowed.count(name)) {
      return pdlite::Usage(shown + " is not a flag of `pdlite " + context +
                           "`");
    }
  }
  if (int code = pdlite::CheckFlagRanges()) return code;
  if (given.count("shapes") && FLAGS_shapes.empty()) {
    return pdlite::Usage(
        "--shapes needs a stream, such as NAME=1x3x[320:928:32]x640");
  }
  if (context == "bench --shapes") {
    // Its inputs are random: data or a LoD given would be ignored.
    if (!repeated.inputs.empty() || !repeated.lods.empty()) {
      return pdlite::Usage(
          "--input and --lod do not go with --shapes (its inputs are "
          "random)");
    }
    if (FLAGS_shapes[0] == '@' &&
        (given.count("samples") || given.count("seed"))) {
      return pdlite::Usage(
          "--samples and --seed draw from --shapes ranges; a shape file (" +
          FLAGS_shapes + ") gives its samples itself");
    }
  }
  // A device or library that cannot be is a usage error, as a bad number
  // is (a device no plugin provides is found later, once plugins load).
  if (allowed.count("device")) {
    if (std::string problem = pdlite::DeviceProblem(); !problem.empty()) {
      return pdlite::Usage(problem);
    }
  }

  if (!repeated.inputs.empty() || !repeated.lods.empty()) {
    if (command != "run" && command != "bench") {
      return pdlite::Usage("--input and --lod belong to `run` and `bench`");
    }
  }
  // The commands report the runtime's own errors; anything else (memory
  // running out) still ends with a message and exit 1, not an abort.
  try {
    if (int code = pdlite::LoadPlugins(repeated.plugins)) return code;
    // Once plugins are in, whose libraries count.
    if (allowed.count("libraries")) {
      if (std::string problem = pdlite::LibrariesProblem(); !problem.empty()) {
        return pdlite::Usage(problem);
      }
    }
    if (command == "run") return pdlite::RunCommand(repeated);
    if (command == "bench") return pdlite::BenchCommand(repeated);
    if (command == "inspect") return pdlite::InspectCommand();
    if (FLAGS_missing) return pdlite::MissingKernelsCommand();
    return pdlite::KernelsCommand();
  } catch (const std::bad_alloc&) {
    std::cerr << "pdlite: out of memory\n";
  } catch (const std::exception& e) {
    std::cerr << "pdlite: " << e.what() << "\n";
  }
  return 1;
}
