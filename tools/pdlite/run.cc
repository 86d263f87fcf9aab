// `pdlite run`: feeds .npy inputs through the public API and writes,
// prints and optionally checks the outputs.
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "framework/model_io.h"
#include "framework/npy.h"
#include "framework/program_io.h"
#include "paddle_lite/paddle_lite.h"
#include "tools/pdlite/commands.h"
#include "tools/pdlite/flags.h"
#include "tools/pdlite/lod_text.h"

namespace pdlite {

namespace fw = paddle_lite::framework;

namespace {

std::string FileSafeName(std::string name) {
  size_t pos;
  while ((pos = name.find('/')) != std::string::npos) {
    name.replace(pos, 1, "__");
  }
  return name;
}

// Two names that FileSafeName maps to one file ("a/b" and "a__b") would
// share it: one's file written or read for the other's. 0, or 2 after
// saying which names.
int RefuseSharedFileNames(const std::vector<std::string>& names,
                          const std::string& kind,
                          const std::string& files) {
  std::map<std::string, std::string> owner;
  for (auto& name : names) {
    auto [it, added] = owner.emplace(FileSafeName(name), name);
    if (!added && it->second != name) {  // a name fetched twice is one file
      std::cerr << "pdlite: the model's " << kind << "s '" << it->second
                << "' and '" << name << "' would share the file "
                << FileSafeName(name) << " in " << files
                << " ('/' is written '__')\n";
      return 2;
    }
  }
  return 0;
}

// Rounds float32 values to a 16-bit float type (to nearest even).
template <typename Half>
std::vector<Half> Narrowed(const float* values, int64_t count) {
  std::vector<Half> out;
  out.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) out.emplace_back(values[i]);
  return out;
}

// `declared`: the type the program declares for the input (FLOAT32 when it
// declares none: the array is then fed as it is).
void FeedInput(paddle_lite::Tensor* handle,
               paddle_lite::DataType declared,
               const fw::Tensor& value) {
  handle->Reshape(value.dims());
  // .npy has no bfloat16 (numpy lacks it): a float32 array feeds a
  // BFLOAT16 input, and a FLOAT16 one too, rounded to it.
  if (value.dtype() == fw::DataType::kFloat32) {
    if (declared == paddle_lite::DataType::FLOAT16) {
      handle->CopyFromCpu(
          Narrowed<paddle_lite::float16>(value.data<float>(), value.numel())
              .data());
      return;
    }
    if (declared == paddle_lite::DataType::BFLOAT16) {
      handle->CopyFromCpu(
          Narrowed<paddle_lite::bfloat16>(value.data<float>(), value.numel())
              .data());
      return;
    }
  }
  fw::VisitDataType(value.dtype(), [&](auto zero) {
    using T = decltype(zero);
    handle->CopyFromCpu(value.data<T>());
  });
}

// What --output-dir writes: the output itself, or for a bfloat16 one,
// which .npy cannot hold, its values widened to float32 (exactly).
fw::Tensor AsNpy(const fw::Tensor& t) {
  if (t.dtype() != fw::DataType::kBFloat16) return t;
  fw::Tensor wide;
  wide.Resize(t.dims());
  float* dst = wide.mutable_data<float>(paddle_lite::platform::CPUPlace{});
  const auto* src = t.data<paddle_lite::bfloat16>();
  for (int64_t i = 0; i < t.numel(); ++i) dst[i] = static_cast<float>(src[i]);
  wide.set_lod(t.lod());
  return wide;
}

// Copies an output handle into an internal tensor (for .npy and checks).
fw::Tensor ToTensor(const paddle_lite::Tensor& out) {
  fw::Tensor t;
  t.Resize(out.shape());
  fw::DataType type = fw::ParseDataType(paddle_lite::DataTypeName(out.type()));
  void* dst = t.mutable_data(paddle_lite::platform::CPUPlace{}, type);
  fw::VisitDataType(type, [&](auto zero) {
    using T = decltype(zero);
    out.CopyToCpu(static_cast<T*>(dst));
  });
  t.set_lod(out.lod());
  return t;
}

double At(const fw::Tensor& t, int64_t i) {
  double v = 0;
  fw::VisitDataType(t.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T& x = static_cast<const T*>(t.raw_data())[i];
    if constexpr (std::is_class_v<T>) {
      v = static_cast<float>(x);
    } else {
      v = static_cast<double>(x);
    }
  });
  return v;
}

// Whether `got` matches `expected` within --atol and --rtol. NaN matches
// NaN, and an infinity only itself: its tolerance is infinite, and any
// value would match it.
bool Close(double got, double expected) {
  if (std::isnan(got) || std::isnan(expected)) {
    return std::isnan(got) && std::isnan(expected);
  }
  if (std::isinf(got) || std::isinf(expected)) return got == expected;
  return std::fabs(got - expected) <=
         FLAGS_atol + FLAGS_rtol * std::fabs(expected);
}

// Whether elements of `type` are integers (bool included).
bool IsInteger(fw::DataType type) {
  bool integer = false;
  fw::VisitDataType(
      type, [&](auto zero) { integer = std::is_integral_v<decltype(zero)>; });
  return integer;
}

// Element `i` of an integer (or bool) tensor, exactly.
int64_t AtInteger(const fw::Tensor& t, int64_t i) {
  int64_t v = 0;
  fw::VisitDataType(t.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_integral_v<T>) {
      v = static_cast<int64_t>(static_cast<const T*>(t.raw_data())[i]);
    }
  });
  return v;
}

void PrintSummary(const std::string& name, const fw::Tensor& t) {
  std::cout << name << ": " << t.dtype() << " " << t.dims();
  int64_t n = t.numel();
  if (n > 0) {
    // NaNs are counted apart: std::min and std::max would keep or drop one
    // depending on where it stands.
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    int64_t nans = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double v = At(t, i);
      if (std::isnan(v)) {
        ++nans;
        continue;
      }
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      sum += v;
    }
    const double mean = nans == n ? NAN : sum / static_cast<double>(n - nans);
    if (nans == n) lo = hi = NAN;
    std::cout << std::setprecision(6) << "  min " << lo << "  max " << hi
              << "  mean " << mean
              << (nans > 0 ? "  NaN " + std::to_string(nans) : std::string())
              << "  first [";
    for (int64_t i = 0; i < std::min<int64_t>(n, 6); ++i) {
      std::cout << (i ? ", " : "") << At(t, i);
    }
    std::cout << (n > 6 ? ", ...]" : "]");
  }
  if (!t.lod().empty()) {
    std::cout << "  lod";
    for (auto& level : t.lod()) {
      std::cout << " [";
      for (size_t i = 0; i < level.size(); ++i) {
        std::cout << (i ? "," : "") << level[i];
      }
      std::cout << "]";
    }
  }
  std::cout << "\n";
}

// mkdir -p: creates `dir` and its missing parents.
void MakeDirs(const std::string& dir) {
  for (size_t pos = dir.find('/', 1);; pos = dir.find('/', pos + 1)) {
    std::string prefix = dir.substr(0, pos);
    if (!prefix.empty()) mkdir(prefix.c_str(), 0755);
    if (pos == std::string::npos) break;
  }
}

// Fetch targets written by an NMS op: rows of (class, score, x1, y1, x2, y2)
// whose order carries no meaning.
std::set<std::string> DetectionOutputs(const std::string& model,
                                       const std::string& params) {
  std::set<std::string> names;
  auto files = fw::ResolveModelFiles(model, params);
  auto program = fw::ParseProgramDesc(fw::ReadFileToString(files.program_file),
                                      files.program_file);
  for (auto& op : program.blocks[0].ops) {
    if (op.type.rfind("multiclass_nms", 0) != 0) continue;
    for (auto& name : op.Output("Out")) names.insert(name);
  }
  return names;
}

void PrintDetections(const fw::Tensor& t) {
  if (t.rank() != 2 || t.dims()[1] != 6) return;
  const auto& lod = t.lod();
  std::vector<size_t> offsets =
      lod.empty() ? std::vector<size_t>{0, static_cast<size_t>(t.dims()[0])}
                  : lod.back();
  for (size_t img = 0; img + 1 < offsets.size(); ++img) {
    std::cout << "  image " << img << ": " << offsets[img + 1] - offsets[img]
              << " detection(s)\n";
    for (size_t r = offsets[img]; r < offsets[img + 1] && r < offsets[img] + 20;
         ++r) {
      std::cout << std::fixed << std::setprecision(3) << "    class "
                << static_cast<int64_t>(At(t, r * 6)) << "  score "
                << At(t, r * 6 + 1) << "  box [" << At(t, r * 6 + 2) << ", "
                << At(t, r * 6 + 3) << ", " << At(t, r * 6 + 4) << ", "
                << At(t, r * 6 + 5) << "]\n";
    }
    if (offsets[img + 1] - offsets[img] > 20) std::cout << "    ...\n";
    std::cout.unsetf(std::ios::fixed);
  }
}

// NMS rows are compared as sets: every expected row must be matched by a
// distinct row of the result with the same class and every value within
// tolerance. Returns the number of unmatched rows.
int64_t CompareRowSets(const std::string& name,
                       const fw::Tensor& got,
                       const fw::Tensor& expected) {
  int64_t cols = expected.rank() == 2 ? expected.dims()[1] : 1;
  // Rows of a table: a rank-0 reference (or result) is no NMS output.
  if (got.dims() != expected.dims() || expected.rank() == 0) {
    auto rows = [](const fw::Tensor& t) {
      return t.rank() == 0 ? std::string("no") : std::to_string(t.dims()[0]);
    };
    std::cout << "  MISMATCH " << name << ": " << rows(got)
              << " rows, expected " << rows(expected) << " (shape "
              << got.dims() << " vs " << expected.dims() << ")\n";
    return std::max<int64_t>(1,
                             expected.dims().empty() ? 1 : expected.dims()[0]);
  }
  int64_t rows = expected.dims()[0];
  std::vector<bool> used(rows, false);
  int64_t unmatched = 0;
  for (int64_t e = 0; e < rows; ++e) {
    bool found = false;
    for (int64_t g = 0; g < rows && !found; ++g) {
      if (used[g] || At(got, g * cols) != At(expected, e * cols)) continue;
      bool close = true;
      for (int64_t c = 1; c < cols && close; ++c) {
        double x = At(got, g * cols + c), y = At(expected, e * cols + c);
        close = Close(x, y);
      }
      if (close) used[g] = found = true;
    }
    if (!found) {
      if (unmatched < 3) {
        std::cout << "  MISMATCH " << name << ": expected row " << e
                  << " (class " << At(expected, e * cols);
        if (cols > 1) std::cout << ", score " << At(expected, e * cols + 1);
        std::cout << ") has no match\n";
      }
      ++unmatched;
    }
  }
  std::cout << "  check " << name << " (rows as a set): " << unmatched << " of "
            << rows << " rows unmatched\n";
  return unmatched;
}

// Returns the number of mismatching elements (and prints the first few).
int64_t Compare(const std::string& name,
                const fw::Tensor& got,
                const fw::Tensor& expected) {
  if (got.dims() != expected.dims()) {
    std::cout << "  MISMATCH " << name << ": shape " << got.dims()
              << " != expected " << expected.dims() << "\n";
    return std::max<int64_t>(1, expected.numel());
  }
  int64_t bad = 0;
  double worst = 0;
  // Integers are compared as integers: through a double, int64 values past
  // 2^53 that differ by one would match.
  const bool integers = IsInteger(got.dtype()) && IsInteger(expected.dtype());
  for (int64_t i = 0; i < got.numel(); ++i) {
    double g = At(got, i), e = At(expected, i);
    const bool match =
        integers ? AtInteger(got, i) == AtInteger(expected, i) : Close(g, e);
    // Past an infinity or a NaN, the difference is 0 or infinite.
    double err = std::fabs(g - e);
    if (!std::isfinite(err)) {
      err = match ? 0 : std::numeric_limits<double>::infinity();
    }
    if (!match) {
      if (bad < 3) {
        std::cout << "  MISMATCH " << name << "[" << i << "]: got ";
        if (integers) {
          std::cout << AtInteger(got, i) << ", expected "
                    << AtInteger(expected, i) << "\n";
        } else {
          std::cout << g << ", expected " << e << "\n";
        }
      }
      ++bad;
    }
    if (err > worst) worst = err;
  }
  std::cout << "  check " << name << ": max |diff| " << worst << ", " << bad
            << " of " << got.numel() << " outside atol " << FLAGS_atol
            << " + rtol " << FLAGS_rtol << "\n";
  return bad;
}

// A line of offsets apart by commas, blanks or both ("0, 3 5"; it may end
// in "\r"), as "0,3,5" for ParseLoDText; "" when blank. Blanks beside a
// comma go; other runs of blanks part offsets. Empty items ("0,,2") stay,
// for ParseLoDText to refuse.
std::string OffsetsLine(const std::string& raw) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  std::string out;
  bool gap = false;  // blanks since the last character kept
  for (char c : raw) {
    if (blank(c)) {
      gap = true;
      continue;
    }
    if (gap && !out.empty() && out.back() != ',' && c != ',') out += ',';
    gap = false;
    out += c;
  }
  return out;
}

}  // namespace

// Adds the inputs of a reference folder: input_<name>.npy (and the LoD in
// input_<name>.lod.txt, one level per line) for every model input.
void AddInputsFromFolder(const std::string& dir,
                         const std::vector<std::string>& names,
                         std::map<std::string, std::string>* files,
                         std::map<std::string, paddle_lite::LoD>* lods) {
  for (auto& name : names) {
    std::string base = dir + "/input_" + FileSafeName(name);
    struct stat st;
    if (files->count(name) || stat((base + ".npy").c_str(), &st) != 0) {
      continue;
    }
    (*files)[name] = base + ".npy";
    if (lods->count(name)) continue;  // --lod gives it
    std::ifstream lod_file(base + ".lod.txt");
    std::string line;
    paddle_lite::LoD lod;
    for (int line_number = 1; std::getline(lod_file, line); ++line_number) {
      line = OffsetsLine(line);
      if (line.empty()) continue;
      paddle_lite::LoD level;
      // A line dropped here would surface later as an op's LoD error.
      if (!ParseLoDText(line, &level) || level.size() != 1) {
        PADDLE_THROW(paddle_lite::platform::errors::InvalidArgument(
            base, ".lod.txt line ", line_number,
            ": expected offsets such as 0,3,5 (one level a line), got '", line,
            "'."));
      }
      lod.push_back(level[0]);
    }
    if (!lod.empty()) (*lods)[name] = lod;
  }
}

int ParseInputSpecs(const RepeatedFlags& repeated, InputSpecs* specs) {
  for (auto& spec : repeated.inputs) {
    std::string name, file;
    if (!SplitAssignment(spec, &name, &file)) {
      return Usage("--input expects NAME=FILE.npy, got '" + spec + "'");
    }
    if (!specs->files.emplace(name, file).second) {
      return Usage("--input gives '" + name + "' twice");
    }
  }
  for (auto& spec : repeated.lods) {
    std::string name, text;
    paddle_lite::LoD lod;
    if (!SplitAssignment(spec, &name, &text) || !ParseLoDText(text, &lod)) {
      return Usage("--lod expects NAME=0,3,5 (levels separated by ';'), got '" +
                   spec + "'");
    }
    if (!specs->lods.emplace(name, lod).second) {
      return Usage("--lod gives '" + name + "' twice");
    }
  }
  return 0;
}

paddle_lite::Config ConfigFromFlags() {
  paddle_lite::Config config;
  config.SetModel(FLAGS_model, FLAGS_params);
  config.SetCpuThreads(FLAGS_threads);
  config.SetDevice(DeviceFromFlags());
  std::vector<std::string> libs;
  std::stringstream ss(FLAGS_libraries);
  std::string lib;
  while (std::getline(ss, lib, ',')) {
    if (!lib.empty() && lib != "PLAIN") libs.push_back(lib);
  }
  config.SetKernelLibraries(libs);
  config.SwitchIrOptim(FLAGS_ir_optim);
  if (FLAGS_cache_mb > 0) {
    config.SetCacheBudget(static_cast<size_t>(FLAGS_cache_mb) << 20);
  }
  config.SetGpuMemoryLimit(static_cast<size_t>(FLAGS_gpu_mem_mb) << 20);
  config.SetMaxLoopIterations(FLAGS_max_loop_iterations);
  config.SetMemoryLimits(static_cast<size_t>(FLAGS_max_tensor_mb) << 20,
                         static_cast<size_t>(FLAGS_max_run_mb) << 20);
  config.EnableTF32(FLAGS_tf32);
  config.EnableCudnnExhaustiveSearch(FLAGS_cudnn_exhaustive_search);
  return config;
}

int FeedInputs(paddle_lite::Predictor* predictor, InputSpecs* specs) {
  auto names = predictor->GetInputNames();
  if (!FLAGS_inputs.empty()) {
    if (int code = RefuseSharedFileNames(names, "input", FLAGS_inputs)) {
      return code;
    }
    AddInputsFromFolder(FLAGS_inputs, names, &specs->files, &specs->lods);
  }
  for (auto& kv : specs->files) {
    if (std::find(names.begin(), names.end(), kv.first) == names.end()) {
      std::string known;
      for (auto& n : names) known += " " + n;
      std::cerr << "pdlite: the model has no input '" << kv.first
                << "'; its inputs are:" << known << "\n";
      return 2;
    }
  }
  // From the declarations: a handle's type() has none to give for an
  // input the program uses without declaring it.
  std::map<std::string, paddle_lite::DataType> declared;
  for (const auto& info : predictor->GetInputInfo()) {
    declared[info.name] = info.type;
  }
  for (auto& name : names) {
    auto it = specs->files.find(name);
    if (it == specs->files.end()) {
      struct stat st;
      const bool folder =
          ::stat(FLAGS_inputs.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
      return Usage("missing --input " + name + "=FILE.npy" +
                   (FLAGS_inputs.empty() ? ""
                    : folder
                        ? " (no input_" + FileSafeName(name) + ".npy in " +
                              FLAGS_inputs + ")"
                        : " (--inputs " + FLAGS_inputs + " is no folder)"));
    }
    auto handle = predictor->GetInputHandle(name);
    auto type = declared.find(name);
    FeedInput(
        handle.get(),
        type == declared.end() ? paddle_lite::DataType::FLOAT32 : type->second,
        fw::ReadNpy(it->second));
    if (specs->lods.count(name)) handle->SetLoD(specs->lods[name]);
  }
  for (auto& kv : specs->lods) {
    if (!specs->files.count(kv.first)) {
      return Usage("--lod names '" + kv.first + "', which is not an input");
    }
  }
  return 0;
}

int RunCommand(const RepeatedFlags& repeated) {
  if (FLAGS_model.empty()) return Usage("run needs --model");
  if (FLAGS_repeat < 1) return Usage("--repeat must be >= 1");
  InputSpecs specs;
  if (int code = ParseInputSpecs(repeated, &specs)) return code;
  try {
    paddle_lite::Config config = ConfigFromFlags();
    auto predictor = paddle_lite::CreatePredictor(config);
    if (int code = FeedInputs(predictor.get(), &specs)) return code;
    for (auto* dir : {&FLAGS_output_dir, &FLAGS_expected}) {
      if (dir->empty()) continue;
      if (int code = RefuseSharedFileNames(predictor->GetOutputNames(),
                                           "output", *dir)) {
        return code;
      }
    }
    // Every expected output read before the first run: a missing or broken
    // file fails the command before any output is written.
    std::map<std::string, fw::Tensor> expected_outputs;
    if (!FLAGS_expected.empty()) {
      std::string missing;
      for (auto& name : predictor->GetOutputNames()) {
        const std::string path =
            FLAGS_expected + "/expected_" + FileSafeName(name) + ".npy";
        struct stat st;
        if (::stat(path.c_str(), &st) != 0) {
          missing += (missing.empty() ? "" : ", ") + path;
          continue;
        }
        expected_outputs[name] = fw::ReadNpy(path);
      }
      if (!missing.empty()) {
        std::cerr << "pdlite: --expected " << FLAGS_expected
                  << " lacks the expected values of output(s) of the model: "
                  << missing << "\n";
        return 1;
      }
    }
    auto detections = DetectionOutputs(FLAGS_model, FLAGS_params);
    // The most elements that differed in one round, and in which.
    int64_t mismatches = 0;
    int worst_round = 0;
    for (int round = 0; round < FLAGS_repeat; ++round) {
      int64_t round_mismatches = 0;
      predictor->Run();
      for (auto& name : predictor->GetOutputNames()) {
        fw::Tensor t = ToTensor(*predictor->GetOutputHandle(name));
        std::string file = FileSafeName(name);
        bool is_detection = detections.count(name) > 0;
        if (round == 0) {
          PrintSummary(name, t);
          if (is_detection) PrintDetections(t);
        }
        if (round == 0 && !FLAGS_output_dir.empty()) {
          MakeDirs(FLAGS_output_dir);
          fw::WriteNpy(FLAGS_output_dir + "/" + file + ".npy", AsNpy(t));
          if (!t.lod().empty()) {
            std::ostringstream lod;
            for (auto& level : t.lod()) {
              for (size_t i = 0; i < level.size(); ++i) {
                lod << (i ? "," : "") << level[i];
              }
              lod << "\n";
            }
            // Checked, as the .npy is: a LoD that cannot be written fails.
            fw::WriteStringToFile(FLAGS_output_dir + "/" + file + ".lod.txt",
                                  lod.str());
          } else {
            // Not an earlier run's, read as this output's.
            std::remove((FLAGS_output_dir + "/" + file + ".lod.txt").c_str());
          }
        }
        if (!FLAGS_expected.empty()) {
          const fw::Tensor& expected = expected_outputs.at(name);
          round_mismatches += is_detection ? CompareRowSets(name, t, expected)
                                           : Compare(name, t, expected);
        }
      }
      if (round_mismatches > mismatches) {
        mismatches = round_mismatches;
        worst_round = round;
      }
    }
    if (FLAGS_report) PrintRunReport(*predictor);
    if (mismatches > 0) {
      std::cout << "FAILED: " << mismatches << " output elements differ from "
                << FLAGS_expected;
      if (FLAGS_repeat > 1) {
        std::cout << " (in run " << worst_round + 1 << " of " << FLAGS_repeat
                  << ", the most of any)";
      }
      std::cout << "\n";
      return 3;
    }
    if (!FLAGS_expected.empty()) {
      std::cout << "OK: every output matches " << FLAGS_expected << "\n";
    }
    return 0;
  } catch (const paddle_lite::Exception& e) {
    std::cerr << "pdlite: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace pdlite
