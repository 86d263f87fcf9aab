// pdlite_hostile: the hostile-program sweep. Loads a model, makes --tries
// copies of its program with --edits hostile edits each (values, attribute
// types, op arguments, var declarations: tools/fuzz/program_mutator.h),
// and loads and runs each copy on the model's reference inputs in a child
// process, so that a crash or a hang is counted rather than fatal. Every
// try must end in a result or a clean error within --timeout seconds; the
// exit status is 1 otherwise.
//
//   pdlite_hostile --model DIR --inputs DIR/ref [--tries 400] [--seed 1]
//                  [--edits 2] [--timeout 10] [--save DIR [--keep K]]
//                  [--verbose]
// --save keeps the program of every try that crashed or hung (and of the
// first K tries with --keep, as fuzzing seeds).
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "framework/data_type.h"
#include "framework/data_type_visit.h"
#include "framework/model_io.h"
#include "framework/npy.h"
#include "framework/program_io.h"
#include "paddle_lite/paddle_lite.h"
#include "tools/fuzz/program_mutator.h"

namespace fw = paddle_lite::framework;

namespace {

struct Options {
  std::string model;
  std::string inputs;
  std::string save;
  int tries = 400;
  uint64_t seed = 1;
  int edits = 2;
  double timeout_s = 10;
  int keep = 0;  // also save the first `keep` mutated programs
  bool verbose = false;
};

[[noreturn]] void Usage(const std::string& why) {
  std::cerr << "pdlite_hostile: " << why
            << "\nusage: pdlite_hostile --model DIR [--inputs DIR] "
               "[--tries N] [--seed S] [--edits E] [--timeout SEC] "
               "[--save DIR [--keep K]] [--verbose]\n";
  std::exit(2);
}

Options ParseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Usage(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--model")
      o.model = value();
    else if (arg == "--inputs")
      o.inputs = value();
    else if (arg == "--save")
      o.save = value();
    else if (arg == "--tries")
      o.tries = std::stoi(value());
    else if (arg == "--seed")
      o.seed = std::stoull(value());
    else if (arg == "--edits")
      o.edits = std::stoi(value());
    else if (arg == "--timeout")
      o.timeout_s = std::stod(value());
    else if (arg == "--keep")
      o.keep = std::stoi(value());
    else if (arg == "--verbose")
      o.verbose = true;
    else
      Usage("unknown argument " + arg);
  }
  if (o.model.empty()) Usage("--model is required");
  return o;
}

struct Input {
  fw::Tensor value;
  paddle_lite::LoD lod;
};

// input_<name>.npy (and .lod.txt) for each feed of the program.
std::map<std::string, Input> ReadInputs(const std::string& dir,
                                        const fw::ProgramDesc& program) {
  std::map<std::string, Input> inputs;
  for (auto& name : program.FeedTargetNames()) {
    std::string base = dir + "/input_" + name;
    Input input;
    input.value = fw::ReadNpy(base + ".npy");
    std::ifstream lod_file(base + ".lod.txt");
    std::string line;
    while (std::getline(lod_file, line)) {
      for (char& c : line) {
        if (c == ',') c = ' ';
      }
      std::istringstream offsets(line);
      std::vector<size_t> level;
      size_t v;
      while (offsets >> v) level.push_back(v);
      if (!level.empty()) input.lod.push_back(level);
    }
    inputs[name] = std::move(input);
  }
  return inputs;
}

// The child's status for a clean error: not 1, which AddressSanitizer's
// report (and UBSan's, told to halt) exits with, and would have passed
// for one. A report that does not end the child is found in its stderr.
constexpr int kCleanError = 65;

// Runs in the child: 0 ran, kCleanError a clean error (message on stderr).
int LoadAndRun(const std::string& program_bytes,
               const std::string& params_bytes,
               const std::map<std::string, Input>& inputs) {
  try {
    paddle_lite::Config config;
    config.SetModelBuffer(program_bytes.data(), program_bytes.size(),
                          params_bytes.data(), params_bytes.size());
    config.SetCpuThreads(1);
    auto predictor = paddle_lite::CreatePredictor(config);
    for (auto& name : predictor->GetInputNames()) {
      auto it = inputs.find(name);
      if (it == inputs.end()) continue;  // the run names the missing input
      auto handle = predictor->GetInputHandle(name);
      const fw::Tensor& value = it->second.value;
      handle->Reshape(value.dims());
      fw::VisitDataType(value.dtype(), [&](auto zero) {
        using T = decltype(zero);
        if constexpr (!std::is_class_v<T>) {
          handle->CopyFromCpu(value.data<T>());
        }
      });
      if (!it->second.lod.empty()) handle->SetLoD(it->second.lod);
    }
    predictor->Run();
    return 0;
  } catch (const std::exception& e) {
    std::string message = e.what();
    std::cerr << message.substr(0, message.find('\n')) << "\n";
    return kCleanError;
  }
}

enum class Outcome { kRan, kError, kCrash, kTimeout };

struct TryResult {
  Outcome outcome = Outcome::kRan;
  double seconds = 0;
  std::string detail;  // error line or signal
};

TryResult RunIsolated(const std::string& program_bytes,
                      const std::string& params_bytes,
                      const std::map<std::string, Input>& inputs,
                      double timeout_s) {
  int err_pipe[2];
  if (pipe(err_pipe) != 0) {
    perror("pipe");
    std::exit(2);
  }
  std::cout.flush();  // or the child inherits and repeats buffered output
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    close(err_pipe[0]);
    dup2(err_pipe[1], STDERR_FILENO);
    _exit(LoadAndRun(program_bytes, params_bytes, inputs));
  }
  close(err_pipe[1]);
  fcntl(err_pipe[0], F_SETFL, O_NONBLOCK);
  std::string err;
  TryResult result;
  int status = 0;
  for (;;) {
    char buf[4096];
    ssize_t n;
    while ((n = read(err_pipe[0], buf, sizeof(buf))) > 0) err.append(buf, n);
    pid_t done = waitpid(pid, &status, WNOHANG);
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (done == pid) break;
    if (result.seconds > timeout_s) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      result.outcome = Outcome::kTimeout;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  char buf[4096];
  ssize_t n;
  while ((n = read(err_pipe[0], buf, sizeof(buf))) > 0) err.append(buf, n);
  close(err_pipe[0]);
  if (result.outcome == Outcome::kTimeout) {
    result.detail = "no answer after " + std::to_string(timeout_s) + " s";
  } else if (err.find("runtime error:") != std::string::npos ||
             err.find("Sanitizer") != std::string::npos) {
    // A sanitizer's report (UBSan goes on after one unless told to halt).
    result.outcome = Outcome::kCrash;
    result.detail = "a sanitizer's report\n" + err.substr(0, 2000);
  } else if (WIFSIGNALED(status)) {
    result.outcome = Outcome::kCrash;
    result.detail = std::string("signal ") + strsignal(WTERMSIG(status)) +
                    "\n" + err.substr(0, 2000);
  } else if (WEXITSTATUS(status) == 0) {
    result.outcome = Outcome::kRan;
  } else if (WEXITSTATUS(status) == kCleanError) {
    result.outcome = Outcome::kError;
    result.detail = err.substr(0, err.find('\n'));
  } else {
    result.outcome = Outcome::kCrash;
    result.detail = "exit status " + std::to_string(WEXITSTATUS(status)) +
                    "\n" + err.substr(0, 2000);
  }
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  Options options = ParseOptions(argc, argv);
  fw::ModelFiles files = fw::ResolveModelFiles(options.model);
  if (files.params_file.empty()) {
    std::cerr << "pdlite_hostile: " << options.model
              << " keeps one file per parameter; give a combined model\n";
    return 2;
  }
  const std::string program_bytes = fw::ReadFileToString(files.program_file);
  const std::string params_bytes = fw::ReadFileToString(files.params_file);
  const fw::ProgramDesc original =
      fw::ParseProgramDesc(program_bytes, files.program_file);
  std::map<std::string, Input> inputs;
  if (!options.inputs.empty()) inputs = ReadInputs(options.inputs, original);

  // The unchanged model must run, or every try below means nothing.
  TryResult baseline =
      RunIsolated(program_bytes, params_bytes, inputs, options.timeout_s * 6);
  if (baseline.outcome != Outcome::kRan) {
    std::cerr << "pdlite_hostile: the unchanged model does not run: "
              << baseline.detail << "\n";
    return 2;
  }

  std::mt19937_64 rng(options.seed);
  int counts[4] = {0, 0, 0, 0};
  double slowest = 0;
  std::map<std::string, int> errors_by_code;
  for (int t = 0; t < options.tries; ++t) {
    fw::ProgramDesc program = original;
    std::string change =
        paddle_lite::fuzz::MutateProgram(&program, options.edits, &rng);
    std::string mutated = fw::SerializeProgramDesc(program);
    TryResult r = RunIsolated(mutated, params_bytes, inputs, options.timeout_s);
    counts[static_cast<int>(r.outcome)]++;
    slowest = std::max(slowest, r.seconds);
    if (r.outcome == Outcome::kError) {
      errors_by_code[r.detail.substr(0, r.detail.find(':'))]++;
    }
    bool bad = r.outcome == Outcome::kCrash || r.outcome == Outcome::kTimeout;
    if (bad || options.verbose) {
      std::cout << "try " << t << " ("
                << (r.outcome == Outcome::kRan     ? "ran"
                    : r.outcome == Outcome::kError ? "error"
                    : r.outcome == Outcome::kCrash ? "CRASH"
                                                   : "TIMEOUT")
                << ", " << r.seconds << " s):\n"
                << change
                << (r.detail.empty() ? "" : "  -> " + r.detail + "\n");
    }
    if ((bad || t < options.keep) && !options.save.empty()) {
      mkdir(options.save.c_str(), 0755);
      fw::WriteStringToFile(
          options.save + "/try" + std::to_string(t) + ".pdmodel", mutated);
    }
  }
  std::cout << options.model << ": " << options.tries << " tries, "
            << options.edits << " edit(s) each, seed " << options.seed
            << ": ran " << counts[0] << ", clean errors " << counts[1]
            << ", crashes " << counts[2] << ", timeouts " << counts[3]
            << "; slowest " << slowest << " s\n";
  for (auto& [code, n] : errors_by_code) {
    std::cout << "  " << code << ": " << n << "\n";
  }
  return counts[2] + counts[3] == 0 ? 0 : 1;
}
