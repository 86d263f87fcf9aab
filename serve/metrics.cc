#include "serve/metrics.h"

#include <unistd.h>

#include <charconv>
#include <fstream>
#include <sstream>

namespace pdlite {
namespace serve {

namespace {
const std::vector<double>& LatencyBounds() {
  static const std::vector<double> bounds = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
      0.05,   0.1,     0.25,   0.5,   1,      2.5,   5,    10};
  return bounds;
}
const std::vector<double>& BatchBounds() {
  static const std::vector<double> bounds = {1, 2, 4, 8, 16, 32, 64, 128};
  return bounds;
}

// The shortest text that reads back as `value`, in fixed notation as
// Prometheus' own clients write bounds ("0.0001", not "1e-04": a bucket's
// le is matched as text): a stream's default six digits would print a sum
// past 1e6 as "1e+06" for good, and cut the latency sums rates divide.
std::string Number(double value) {
  char text[512];  // any double's shortest fixed text fits
  auto result =
      std::to_chars(text, text + sizeof text, value, std::chars_format::fixed);
  if (result.ec != std::errc()) {
    result = std::to_chars(text, text + sizeof text, value);
  }
  return std::string(text, result.ptr);
}

std::string Labels(const std::pair<std::string, std::string>& key) {
  // Model names are folder names; escape what the format reserves.
  std::string name;
  for (char c : key.first) {
    if (c == '"' || c == '\\') name += '\\';
    name += c == '\n' ? ' ' : c;
  }
  return "model=\"" + name + "\",version=\"" + key.second + "\"";
}
}  // namespace

void Metrics::Histogram::Observe(double value) {
  if (counts.empty()) counts.assign(bounds.size(), 0);
  for (size_t i = 0; i < bounds.size(); ++i) {
    if (value <= bounds[i]) {
      ++counts[i];
      break;
    }
  }
  sum += value;
  ++count;
}

void Metrics::Forget(const std::string& model, const std::string& version) {
  std::lock_guard<std::mutex> lock(mutex_);
  models_.erase({model, version});
}

Metrics::PerModel& Metrics::Get(const std::string& model,
                                const std::string& version) {
  auto [it, fresh] = models_.try_emplace({model, version});
  if (fresh) {
    for (auto* h :
         {&it->second.queue, &it->second.compute, &it->second.total}) {
      h->bounds = LatencyBounds();
    }
    it->second.batch.bounds = BatchBounds();
  }
  return it->second;
}

void Metrics::RecordRequest(const std::string& model,
                            const std::string& version,
                            bool ok,
                            double queue_s,
                            double compute_s,
                            double total_s,
                            bool caller_gone) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& m = Get(model, version);
  ++m.requests;
  if (!ok) ++m.failures;
  if (caller_gone) ++m.callers_gone;
  m.queue.Observe(queue_s);
  if (compute_s > 0) m.compute.Observe(compute_s);
  m.total.Observe(total_s);
}

void Metrics::RecordBatch(const std::string& model,
                          const std::string& version,
                          int size) {
  std::lock_guard<std::mutex> lock(mutex_);
  Get(model, version).batch.Observe(size);
}

std::string Metrics::Render() const {
  std::ostringstream out;
  std::lock_guard<std::mutex> lock(mutex_);
  auto counter = [&](const char* name, const char* help,
                     uint64_t PerModel::*field) {
    out << "# HELP " << name << " " << help << "\n# TYPE " << name
        << " counter\n";
    for (auto& [key, m] : models_) {
      out << name << "{" << Labels(key) << "} " << m.*field << "\n";
    }
  };
  auto histogram = [&](const char* name, const char* help,
                       Histogram PerModel::*field) {
    out << "# HELP " << name << " " << help << "\n# TYPE " << name
        << " histogram\n";
    for (auto& [key, m] : models_) {
      const Histogram& h = m.*field;
      uint64_t cumulative = 0;
      for (size_t i = 0; i < h.bounds.size(); ++i) {
        cumulative += h.counts.empty() ? 0 : h.counts[i];
        out << name << "_bucket{" << Labels(key) << ",le=\""
            << Number(h.bounds[i]) << "\"} " << cumulative << "\n";
      }
      out << name << "_bucket{" << Labels(key) << ",le=\"+Inf\"} " << h.count
          << "\n";
      out << name << "_sum{" << Labels(key) << "} " << Number(h.sum) << "\n";
      out << name << "_count{" << Labels(key) << "} " << h.count << "\n";
    }
  };
  counter("pdlite_inference_requests_total",
          "Inference requests answered, successful or not.",
          &PerModel::requests);
  counter("pdlite_inference_failures_total",
          "Inference requests answered with an error.", &PerModel::failures);
  counter("pdlite_inference_callers_gone_total",
          "Inference requests answered without running because their "
          "caller had gone (its deadline passed, it cancelled, it closed "
          "its connection); counted in the failures too.",
          &PerModel::callers_gone);
  histogram("pdlite_queue_duration_seconds",
            "Time a request waited in its model's queue.", &PerModel::queue);
  histogram("pdlite_compute_duration_seconds",
            "Time of the model run that computed a request (its batch).",
            &PerModel::compute);
  histogram("pdlite_request_duration_seconds",
            "End-to-end time of a request in the server core.",
            &PerModel::total);
  histogram("pdlite_batch_size", "Requests per model run.", &PerModel::batch);
  out << "# HELP pdlite_inflight_requests Inference requests being "
         "handled.\n# TYPE pdlite_inflight_requests gauge\n"
      << "pdlite_inflight_requests " << inflight_.load() << "\n";
  out << "# HELP pdlite_http_spins_total Times an HTTP connection spun "
         "for its next request (--http-spin-us).\n"
         "# TYPE pdlite_http_spins_total counter\n"
      << "pdlite_http_spins_total " << spins_.load() << "\n";
  out << "# HELP pdlite_http_spins_caught_total Spins that the next request "
         "ended.\n# TYPE pdlite_http_spins_caught_total counter\n"
      << "pdlite_http_spins_caught_total " << spins_caught_.load() << "\n";
  out << "# HELP process_resident_memory_bytes Resident memory size in "
         "bytes.\n# TYPE process_resident_memory_bytes gauge\n"
      << "process_resident_memory_bytes " << ProcessRssBytes() << "\n";
  return out.str();
}

size_t ProcessRssBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages_total = 0, pages_resident = 0;
  if (!(statm >> pages_total >> pages_resident)) return 0;
  return pages_resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace serve
}  // namespace pdlite
