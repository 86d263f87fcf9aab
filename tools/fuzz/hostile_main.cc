// pdlite_hostile: the hostile-program sweep. Loads a model, makes --tries
// copies of its program with --edits hostile edits each (values, attribute
// types, op arguments, var declarations: tools/fuzz/program_mutator.h),
// and loads and runs each copy on the model's reference inputs in a child
// process, so that a crash or a hang is counted rather than fatal. Every
// try must end in a result or a clean error within --timeout seconds; the
// exit status is 1 otherwise. A model with one file per parameter is
// tried from a temporary folder of links to those files beside each
// try's program (removed at the end).
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

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
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

// Where a try's program comes from: bytes given with the combined
// parameters, or, for a model of one file per parameter, a folder of
// links to those files where each try's program is written as __model__.
struct ModelSource {
  std::string params_bytes;  // combined parameters
  std::string folder;        // or this folder (removed by its destructor)

  ModelSource() = default;
  ModelSource(const ModelSource&) = delete;
  ModelSource& operator=(const ModelSource&) = delete;
  ~ModelSource() {
    if (folder.empty()) return;
    std::error_code ignored;
    std::filesystem::remove_all(folder, ignored);
  }

  // Links every file of `params_dir` but program files into a new
  // temporary folder.
  void LinkParameters(const std::string& params_dir) {
    namespace fs = std::filesystem;
    std::string pattern =
        (fs::temp_directory_path() / "pdlite_hostile.XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("mkdtemp " + pattern + ": " +
                               std::strerror(errno));
    }
    folder = pattern;
    for (const auto& entry : fs::directory_iterator(params_dir)) {
      // No program file of any name: the loader would find two, or the
      // try's __model__ would be written through a link into the model.
      const std::string name = entry.path().filename().string();
      const bool program = name == "__model__" || name == "model" ||
                           entry.path().extension() == ".pdmodel";
      if (!entry.is_regular_file() || program) continue;
      fs::create_symlink(fs::absolute(entry.path()), fs::path(folder) / name);
    }
  }

  // Makes `program_bytes` the program the next try loads.
  void SetProgram(const std::string& program_bytes) const {
    if (!folder.empty()) {
      fw::WriteStringToFile(folder + "/__model__", program_bytes);
    }
  }
};

// Runs in the child: 0 ran, kCleanError a clean error (message on stderr).
int LoadAndRun(const std::string& program_bytes,
               const ModelSource& source,
               const std::map<std::string, Input>& inputs) {
  try {
    paddle_lite::Config config;
    if (source.folder.empty()) {
      config.SetModelBuffer(program_bytes.data(), program_bytes.size(),
                            source.params_bytes.data(),
                            source.params_bytes.size());
    } else {
      config.SetModel(source.folder);
    }
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

// The last line of `text` that is not empty.
std::string LastLine(const std::string& text) {
  const size_t end = text.find_last_not_of('\n');
  if (end == std::string::npos) return "";
  const size_t newline = text.find_last_of('\n', end);
  const size_t start = newline == std::string::npos ? 0 : newline + 1;
  return text.substr(start, end + 1 - start);
}

enum class Outcome { kRan, kError, kCrash, kTimeout };

struct TryResult {
  Outcome outcome = Outcome::kRan;
  double seconds = 0;
  std::string detail;  // error line or signal
};

TryResult RunIsolated(const std::string& program_bytes,
                      const ModelSource& source,
                      const std::map<std::string, Input>& inputs,
                      double timeout_s) {
  source.SetProgram(program_bytes);
  int err_pipe[2];
  if (pipe(err_pipe) != 0) {
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  std::cout.flush();  // or the child inherits and repeats buffered output
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    const int error = errno;
    close(err_pipe[0]);
    close(err_pipe[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(error));
  }
  if (pid == 0) {
    close(err_pipe[0]);
    dup2(err_pipe[1], STDERR_FILENO);
    // Nothing may unwind out of the child into main, whose cleanup would
    // remove the parent's folder: anything LoadAndRun lets out is a crash.
    int status = 70;
    try {
      status = LoadAndRun(program_bytes, source, inputs);
    } catch (...) {
    }
    _exit(status);
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
    // The error's line is the child's last (a log line may come first).
    result.outcome = Outcome::kError;
    result.detail = LastLine(err);
  } else {
    result.outcome = Outcome::kCrash;
    result.detail = "exit status " + std::to_string(WEXITSTATUS(status)) +
                    "\n" + err.substr(0, 2000);
  }
  return result;
}

}  // namespace

int Main(int argc, char** argv) {
  Options options = ParseOptions(argc, argv);
  fw::ModelFiles files = fw::ResolveModelFiles(options.model);
  const std::string program_bytes = fw::ReadFileToString(files.program_file);
  ModelSource source;
  if (files.params_file.empty()) {
    source.LinkParameters(files.params_dir);
  } else {
    source.params_bytes = fw::ReadFileToString(files.params_file);
  }
  const fw::ProgramDesc original =
      fw::ParseProgramDesc(program_bytes, files.program_file);
  std::map<std::string, Input> inputs;
  if (!options.inputs.empty()) inputs = ReadInputs(options.inputs, original);

  // The unchanged model must run, or every try below means nothing.
  TryResult baseline =
      RunIsolated(program_bytes, source, inputs, options.timeout_s * 6);
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
    TryResult r = RunIsolated(mutated, source, inputs, options.timeout_s);
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

int main(int argc, char** argv) {
  // Caught here, so that the temporary folder is removed on the way out.
  try {
    return Main(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "pdlite_hostile: " << e.what() << "\n";
    return 2;
  }
}
