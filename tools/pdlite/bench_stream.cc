// `pdlite bench --shapes`: one predictor runs a stream of input shapes,
// pass after pass, as a service whose requests each have their own size.
// Per pass: total, median and worst latency, a shape's first sight vs its
// later sights, RSS and the bytes each cache holds.
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <type_traits>

#include "tools/pdlite/commands.h"
#include "tools/pdlite/flags.h"
#include "tools/pdlite/shape_stream.h"

namespace pdlite {

namespace {

using Clock = std::chrono::steady_clock;

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// For JSON: null when there is nothing to take the median of (a pass
// with no shape seen before), as the peers' workers write it.
struct MedianOrNull {
  explicit MedianOrNull(const std::vector<double>& v) : values(v) {}
  const std::vector<double>& values;
};
std::ostream& operator<<(std::ostream& out, const MedianOrNull& m) {
  if (m.values.empty()) return out << "null";
  return out << Median(m.values);
}

double Sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

using paddle_lite::DataType;

// Bytes of an element of an input of `type`.
uint64_t ElementBytes(DataType type) {
  switch (type) {
    case DataType::FLOAT64:
    case DataType::INT64:
      return 8;
    case DataType::FLOAT16:
    case DataType::BFLOAT16:
    case DataType::INT16:
      return 2;
    case DataType::INT8:
    case DataType::UINT8:
    case DataType::BOOL:
      return 1;
    default:
      return 4;
  }
}

// Random input values, the same for a sample in every pass (seeded by its
// index), in the input's declared type: floating inputs uniform in [-1, 1)
// (float16 and bfloat16 inputs: float32 values rounded to them), integer and
// bool inputs 0 or 1 (an index every table has, as token ids must be).
// Written into buffers that grow to the largest input.
class NoiseInputs {
 public:
  void CopyInto(paddle_lite::Tensor* handle,
                DataType type,
                size_t count,
                size_t sample,
                size_t input) {
    SplitMix64 rng(0x5eed0000ULL + sample * 131 + input);
    switch (type) {
      case DataType::FLOAT64:
        return Copy(&rng, count, &f64_, handle);
      case DataType::INT64:
        return Copy(&rng, count, &i64_, handle);
      case DataType::INT32:
        return Copy(&rng, count, &i32_, handle);
      case DataType::INT16:
        return Copy(&rng, count, &i16_, handle);
      case DataType::INT8:
        return Copy(&rng, count, &i8_, handle);
      case DataType::UINT8:
        return Copy(&rng, count, &u8_, handle);
      case DataType::FLOAT16:
        return Copy(&rng, count, &f16_, handle);
      case DataType::BFLOAT16:
        return Copy(&rng, count, &bf16_, handle);
      case DataType::BOOL:
        if (bools_size_ < count) {
          bools_.reset(new bool[count]);
          bools_size_ = count;
        }
        for (size_t i = 0; i < count; ++i) bools_[i] = rng.Next() >> 63;
        return handle->CopyFromCpu(bools_.get());
      default:
        return Copy(&rng, count, &f32_, handle);
    }
  }

 private:
  template <typename T>
  static void Copy(SplitMix64* rng,
                   size_t count,
                   std::vector<T>* values,
                   paddle_lite::Tensor* handle) {
    values->resize(count);
    for (T& v : *values) {
      if constexpr (std::is_integral_v<T>) {
        v = static_cast<T>(rng->Next() >> 63);
      } else {
        // float16 and bfloat16: the float's value rounded to them.
        v = T(static_cast<float>(rng->Next() >> 40) / 8388608.0f - 1.0f);
      }
    }
    handle->CopyFromCpu(values->data());
  }

  std::vector<float> f32_;
  std::vector<paddle_lite::float16> f16_;
  std::vector<paddle_lite::bfloat16> bf16_;
  std::vector<double> f64_;
  std::vector<int64_t> i64_;
  std::vector<int32_t> i32_;
  std::vector<int16_t> i16_;
  std::vector<int8_t> i8_;
  std::vector<uint8_t> u8_;
  std::unique_ptr<bool[]> bools_;
  size_t bools_size_ = 0;
};

struct Pass {
  std::vector<double> ms;        // per sample, in stream order
  std::vector<double> first_ms;  // runs that saw their shape first
  std::vector<double> later_ms;  // the others
  double rss_mb = 0;             // VmRSS after the pass
  double heap_used_mb = 0;       // malloc'd and not freed, all arenas
  double heap_held_mb = 0;       // what malloc holds from the system
  std::map<std::string, size_t> cache_bytes;
  size_t plans_cached = 0;
  size_t generic_runs = 0;  // runs on the generic kernels
  size_t narrow_runs = 0;   // runs given to one thread of several
};

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

int BenchStreamCommand() {
  if (FLAGS_stream_passes < 1) return Usage("--passes must be >= 1");
  std::vector<ShapeSample> stream;
  std::string problem = MakeShapeStream(
      FLAGS_shapes, FLAGS_samples, static_cast<uint64_t>(FLAGS_seed), &stream);
  if (!problem.empty()) return Usage("--shapes: " + problem);
  try {
    paddle_lite::Config config = ConfigFromFlags();
    const double baseline_rss_mb = ProcStatusMb("VmRSS");
    auto load_start = Clock::now();
    auto predictor = paddle_lite::CreatePredictor(config);
    const double load_ms =
        std::chrono::duration<double, std::milli>(Clock::now() - load_start)
            .count();
    const auto names = predictor->GetInputNames();
    std::map<std::string, DataType> types;
    std::map<std::string, int> lod_levels;
    for (const auto& info : predictor->GetInputInfo()) {
      types[info.name] = info.type;
      lod_levels[info.name] = info.lod_level;
    }
    for (auto& sample : stream) {
      if (sample.size() != names.size()) {
        return Usage("--shapes gives " + std::to_string(sample.size()) +
                     " input(s) per sample; the model has " +
                     std::to_string(names.size()));
      }
      std::set<std::string> named;
      for (auto& in : sample) {
        if (std::find(names.begin(), names.end(), in.name) == names.end()) {
          return Usage("--shapes names '" + in.name +
                       "', which is not an input of the model");
        }
        if (!named.insert(in.name).second) {
          return Usage("--shapes names '" + in.name + "' twice in a sample");
        }
        // The noise is made here: a shape past the tensor limit is refused
        // before it is allocated, as a run would refuse it.
        uint64_t bytes = ElementBytes(types[in.name]);
        for (auto d : in.dims) {
          if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes)) {
            bytes = UINT64_MAX;
            break;
          }
        }
        if (bytes > config.max_tensor_bytes()) {
          return Usage("--shapes: " + SampleToString({in}) +
                       " takes more than the " +
                       std::to_string(config.max_tensor_bytes() >> 20) +
                       " MB one tensor may (--max-tensor-mb)");
        }
      }
    }
    std::map<std::string, std::unique_ptr<paddle_lite::Tensor>> handles;
    for (auto& name : names) handles[name] = predictor->GetInputHandle(name);
    NoiseInputs noise;
    std::set<std::string> seen;
    // Per sample: its latency at first sight and at every later sight.
    std::vector<double> first_sight(stream.size(), -1);
    std::vector<std::vector<double>> later_sights(stream.size());
    std::vector<Pass> passes(FLAGS_stream_passes);
    // Every record's room is taken before the first run: records growing
    // between passes touched new heap pages, which the RSS of later
    // passes counted (+52 KB in each of passes 3 to 5 of a small model).
    for (auto& sights : later_sights) sights.reserve(FLAGS_stream_passes);
    for (auto& pass : passes) {
      pass.ms.reserve(stream.size());
      pass.first_ms.reserve(stream.size());
      pass.later_ms.reserve(stream.size());
    }
    for (int p = 0; p < FLAGS_stream_passes; ++p) {
      Pass& pass = passes[p];
      for (size_t s = 0; s < stream.size(); ++s) {
        for (size_t i = 0; i < stream[s].size(); ++i) {
          const auto& dims = stream[s][i].dims;
          size_t count = 1;  // bounded above, by the tensor limit
          for (auto d : dims) count *= static_cast<size_t>(d);
          const std::string& name = stream[s][i].name;
          auto& handle = handles[name];
          handle->Reshape(dims);
          noise.CopyInto(handle.get(), types[name], count, s, i);
          if (lod_levels[name] > 0) {
            // A sequence input: its rows as one sequence.
            paddle_lite::LoD lod(lod_levels[name], {0, 1});
            lod.back() = {0, dims.empty() ? 1 : static_cast<size_t>(dims[0])};
            handle->SetLoD(lod);
          }
        }
        const bool first = seen.insert(SampleToString(stream[s])).second;
        auto start = Clock::now();
        predictor->Run();
        const double ms =
            std::chrono::duration<double, std::milli>(Clock::now() - start)
                .count();
        pass.ms.push_back(ms);
        (first ? pass.first_ms : pass.later_ms).push_back(ms);
        const paddle_lite::RunStats run_stats = predictor->last_run_stats();
        if (run_stats.ran_generic) ++pass.generic_runs;
        if (run_stats.threads < FLAGS_threads) ++pass.narrow_runs;
        if (first) {
          first_sight[s] = ms;
        } else {
          later_sights[s].push_back(ms);
        }
      }
      auto stats = predictor->last_run_stats();
      pass.rss_mb = ProcStatusMb("VmRSS");
      const struct mallinfo2 heap = mallinfo2();
      pass.heap_used_mb = (heap.uordblks + heap.hblkhd) / 1048576.0;
      pass.heap_held_mb = (heap.arena + heap.hblkhd) / 1048576.0;
      pass.cache_bytes = stats.cache_bytes;
      pass.plans_cached = stats.plans_cached;
    }
    // A new shape against its own steady latency (median of its later
    // sights), over the shapes seen again.
    std::vector<double> first_vs_steady;
    for (size_t s = 0; s < stream.size(); ++s) {
      if (first_sight[s] < 0 || later_sights[s].empty()) continue;
      first_vs_steady.push_back(first_sight[s] / Median(later_sights[s]));
    }
    const double worst_ratio =
        first_vs_steady.empty()
            ? 0
            : *std::max_element(first_vs_steady.begin(), first_vs_steady.end());
    const auto budget = predictor->last_run_stats().cache_budget_bytes;
    const size_t made_ahead = predictor->last_run_stats().shapes_made_ahead;

    if (FLAGS_json) {
      std::ostringstream json;
      json.precision(6);
      json << std::fixed << "{\"load_ms\": " << load_ms
           << ", \"baseline_rss_mb\": " << baseline_rss_mb
           << ", \"peak_rss_mb\": " << ProcStatusMb("VmHWM")
           << ", \"threads\": " << FLAGS_threads
           << ", \"cache_budget_bytes\": " << budget
           << ", \"shapes_made_ahead\": " << made_ahead << ", \"stream\": [";
      for (size_t s = 0; s < stream.size(); ++s) {
        json << (s ? ", " : "") << JsonString(SampleToString(stream[s]));
      }
      // null: no shape was seen twice (one pass, or no shape again).
      json << "], \"first_vs_steady\": {\"median\": "
           << MedianOrNull(first_vs_steady) << ", \"max\": ";
      if (first_vs_steady.empty()) {
        json << "null";
      } else {
        json << worst_ratio;
      }
      json << "}, \"passes\": [";
      for (size_t p = 0; p < passes.size(); ++p) {
        const Pass& pass = passes[p];
        json << (p ? ", " : "") << "{\"total_ms\": " << Sum(pass.ms)
             << ", \"median_ms\": " << Median(pass.ms) << ", \"max_ms\": "
             << *std::max_element(pass.ms.begin(), pass.ms.end())
             << ", \"first_sight_median_ms\": " << MedianOrNull(pass.first_ms)
             << ", \"later_sight_median_ms\": " << MedianOrNull(pass.later_ms)
             << ", \"first_sights\": " << pass.first_ms.size()
             << ", \"rss_mb\": " << pass.rss_mb
             << ", \"heap_used_mb\": " << pass.heap_used_mb
             << ", \"heap_held_mb\": " << pass.heap_held_mb
             << ", \"plans_cached\": " << pass.plans_cached
             << ", \"generic_runs\": " << pass.generic_runs
             << ", \"narrow_runs\": " << pass.narrow_runs
             << ", \"cache_bytes\": {";
        bool first = true;
        for (auto& kv : pass.cache_bytes) {
          json << (first ? "" : ", ") << JsonString(kv.first) << ": "
               << kv.second;
          first = false;
        }
        json << "}, \"samples_ms\": [";
        for (size_t s = 0; s < pass.ms.size(); ++s) {
          json << (s ? ", " : "") << pass.ms[s];
        }
        json << "]}";
      }
      json << "]}";
      std::cout << json.str() << "\n";
      return 0;
    }
    std::printf(
        "%s: a stream of %zu shapes, %d pass(es), %d thread(s); load %.1f "
        "ms\ncache budget %.1f MB\n\n",
        FLAGS_model.c_str(), stream.size(), FLAGS_stream_passes, FLAGS_threads,
        load_ms, budget / 1048576.0);
    std::printf("%4s %10s %9s %9s %12s %12s %9s %13s %6s  %s\n", "pass",
                "total ms", "median", "worst", "new (n) med", "seen med",
                "RSS MB", "heap used/held", "plans", "cache MB");
    for (size_t p = 0; p < passes.size(); ++p) {
      const Pass& pass = passes[p];
      std::ostringstream caches;
      caches.precision(1);
      caches << std::fixed;
      double cache_total = 0;
      for (auto& kv : pass.cache_bytes) {
        caches << " " << kv.first << "=" << kv.second / 1048576.0;
        cache_total += kv.second / 1048576.0;
      }
      char first_col[32];
      std::snprintf(first_col, sizeof(first_col), "(%zu) %.2f",
                    pass.first_ms.size(), Median(pass.first_ms));
      char seen_col[32];
      std::snprintf(seen_col, sizeof(seen_col), "%.2f", Median(pass.later_ms));
      char heap_col[32];
      std::snprintf(heap_col, sizeof(heap_col), "%.1f/%.1f", pass.heap_used_mb,
                    pass.heap_held_mb);
      std::printf(
          "%4zu %10.1f %9.2f %9.2f %12s %12s %9.1f %13s %6zu  %.1f:%s\n", p + 1,
          Sum(pass.ms), Median(pass.ms),
          *std::max_element(pass.ms.begin(), pass.ms.end()),
          pass.first_ms.empty() ? "-" : first_col,
          pass.later_ms.empty() ? "-" : seen_col, pass.rss_mb, heap_col,
          pass.plans_cached, cache_total, caches.str().c_str());
    }
    size_t generic_runs = 0, narrow_runs = 0, runs = 0;
    for (const Pass& pass : passes) {
      generic_runs += pass.generic_runs;
      narrow_runs += pass.narrow_runs;
      runs += pass.ms.size();
    }
    if (first_vs_steady.empty()) {
      std::printf(
          "\na new shape against its steady latency: - (no shape was seen "
          "twice)\n");
    } else {
      std::printf(
          "\na new shape against its steady latency: median %.2fx, worst "
          "%.2fx\n",
          Median(first_vs_steady), worst_ratio);
    }
    std::printf(
        "shapes made ahead by a clone (Config::EnableMakeAhead): "
        "%zu\nruns on the generic kernels (Config::EnableGenericKernels): "
        "%zu of %zu\nruns on one thread of %d (Config::EnableNarrowRuns): %zu "
        "of "
        "%zu\nRSS: baseline %.1f MB, peak %.1f MB\n",
        made_ahead, generic_runs, runs, FLAGS_threads, narrow_runs, runs,
        baseline_rss_mb, ProcStatusMb("VmHWM"));
    return 0;
  } catch (const paddle_lite::Exception& e) {
    std::cerr << "pdlite: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace pdlite
