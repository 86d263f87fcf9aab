// `pdlite bench`: load time, first run, latency distribution and peak RSS,
// as text or one JSON object (bench/vs_peers.py reads it); --profile adds
// time per op type and per chosen kernel.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "tools/pdlite/commands.h"
#include "tools/pdlite/flags.h"

namespace pdlite {

// The peak is VmHWM, not getrusage's ru_maxrss: Linux carries that across
// exec, so it would count the peak of whatever launched pdlite (a Python
// harness, say).
double ProcStatusMb(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      return std::stod(line.substr(field.size() + 1)) / 1024.0;  // kB
    }
  }
  return 0;
}

namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

double PeakRssMb() { return ProcStatusMb("VmHWM"); }

struct Totals {
  double ms = 0;
  int calls = 0;
};

void PrintProfile(FILE* out,
                  const std::map<std::string, Totals>& by,
                  const char* what,
                  double total_ms,
                  int iters) {
  std::vector<std::pair<std::string, Totals>> rows(by.begin(), by.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second.ms > b.second.ms;
  });
  std::fprintf(out, "\n%-48s %10s %8s %7s %10s\n", what, "ms/run", "calls", "%",
               "us/call");
  for (auto& r : rows) {
    std::fprintf(out, "%-48s %10.3f %8d %6.1f%% %10.2f\n", r.first.c_str(),
                 r.second.ms / iters, r.second.calls / iters,
                 100.0 * r.second.ms / total_ms,
                 1000.0 * r.second.ms / std::max(r.second.calls, 1));
  }
}

}  // namespace

int BenchCommand(const RepeatedFlags& repeated) {
  if (FLAGS_model.empty()) return Usage("bench needs --model");
  if (!FLAGS_shapes.empty()) {
    if (!repeated.inputs.empty() || !FLAGS_inputs.empty()) {
      return Usage("--shapes makes its own inputs: no --input or --inputs");
    }
    return BenchStreamCommand();
  }
  if (FLAGS_iters < 1 || FLAGS_warmup < 0) {
    return Usage("--iters must be >= 1 and --warmup >= 0");
  }
  InputSpecs specs;
  if (int code = ParseInputSpecs(repeated, &specs)) return code;
  try {
    paddle_lite::Config config = ConfigFromFlags();
    config.EnableProfiling(FLAGS_profile);
    // The process before the model: what peak RSS minus this adds is the
    // model's own footprint (peers are measured the same way).
    const double baseline_rss_mb = ProcStatusMb("VmRSS");
    auto load_start = Clock::now();
    auto predictor = paddle_lite::CreatePredictor(config);
    double load_ms = MsSince(load_start);
    if (int code = FeedInputs(predictor.get(), &specs)) return code;

    auto first_start = Clock::now();
    predictor->Run();
    double first_run_ms = MsSince(first_start);
    for (int i = 1; i < FLAGS_warmup; ++i) predictor->Run();

    std::vector<double> samples;
    std::map<std::string, Totals> by_type, by_kernel;
    double profiled_ms = 0;
    for (int i = 0; i < FLAGS_iters; ++i) {
      auto start = Clock::now();
      predictor->Run();
      samples.push_back(MsSince(start));
      if (FLAGS_profile) {
        for (auto& t : predictor->last_run_stats().op_times) {
          by_type[t.op_type].ms += t.ms;
          by_type[t.op_type].calls++;
          std::string kernel = t.op_type + " " + t.kernel;
          by_kernel[kernel].ms += t.ms;
          by_kernel[kernel].calls++;
          profiled_ms += t.ms;
        }
      }
    }
    auto stats = predictor->last_run_stats();
    std::vector<double> sorted = samples;
    std::sort(sorted.begin(), sorted.end());
    double mean = 0;
    for (double v : samples) mean += v;
    mean /= static_cast<double>(samples.size());
    size_t p90 = static_cast<size_t>(std::ceil(0.9 * sorted.size())) - 1;
    double median =
        sorted.size() % 2
            ? sorted[sorted.size() / 2]
            : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
    if (FLAGS_profile) {
      // With --json, stdout holds the JSON object alone.
      FILE* out = FLAGS_json ? stderr : stdout;
      PrintProfile(out, by_type, "op type", profiled_ms, FLAGS_iters);
      PrintProfile(out, by_kernel, "op kernel", profiled_ms, FLAGS_iters);
      std::fprintf(out, "\nops %.3f ms/run of %.3f ms/run measured\n\n",
                   profiled_ms / FLAGS_iters, mean);
    }
    std::ostringstream json;
    json.precision(6);
    json << std::fixed << "{\"latency_ms\": {\"min\": " << sorted.front()
         << ", \"median\": " << median << ", \"p90\": " << sorted[p90]
         << ", \"max\": " << sorted.back() << ", \"mean\": " << mean
         << "}, \"load_ms\": " << load_ms
         << ", \"first_run_ms\": " << first_run_ms
         << ", \"peak_rss_mb\": " << PeakRssMb()
         << ", \"baseline_rss_mb\": " << baseline_rss_mb
         << ", \"threads\": " << FLAGS_threads << ", \"iters\": " << FLAGS_iters
         << ", \"arena_bytes\": " << stats.arena_bytes
         << ", \"unplanned_bytes\": " << stats.unplanned_bytes
         << ", \"samples_ms\": [";
    for (size_t i = 0; i < samples.size(); ++i) {
      json << (i ? ", " : "") << samples[i];
    }
    json << "]}";
    if (FLAGS_json) {
      std::cout << json.str() << "\n";
    } else {
      std::printf(
          "%s: %d runs after %d warm-up, %d thread(s)\n"
          "  latency ms: min %.3f  median %.3f  p90 %.3f  max %.3f  mean "
          "%.3f\n"
          "  load %.1f ms, first run %.3f ms, peak RSS %.1f MB\n"
          "  intermediate memory: %.2f MB planned (%.2f MB unplanned)\n",
          // The first run is always made (first_run_ms): a warm-up of 0
          // is one.
          FLAGS_model.c_str(), FLAGS_iters, std::max(FLAGS_warmup, 1),
          FLAGS_threads, sorted.front(), median, sorted[p90], sorted.back(),
          mean, load_ms, first_run_ms, PeakRssMb(),
          stats.arena_bytes / 1048576.0, stats.unplanned_bytes / 1048576.0);
    }
    return 0;
  } catch (const paddle_lite::Exception& e) {
    std::cerr << "pdlite: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace pdlite
