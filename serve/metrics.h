// Prometheus metrics of the server: counters, histograms and gauges per
// model, rendered in the text exposition format for GET /metrics.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace pdlite {
namespace serve {

class Metrics {
 public:
  /// One finished request of `model` (name and version): its time queued,
  /// computing and end to end, in seconds; `ok` false counts a failure,
  /// and `caller_gone` one answered without running because its caller
  /// had gone (InferRequest::caller_deadline, abandoned).
  void RecordRequest(const std::string& model,
                     const std::string& version,
                     bool ok,
                     double queue_s,
                     double compute_s,
                     double total_s,
                     bool caller_gone = false);
  /// A run of `size` requests batched together.
  void RecordBatch(const std::string& model,
                   const std::string& version,
                   int size);
  /// Drops the series of a model version no longer served.
  void Forget(const std::string& model, const std::string& version);
  void AddInflight(int delta) { inflight_ += delta; }
  int inflight() const { return inflight_.load(std::memory_order_relaxed); }
  /// An HTTP connection spun for its next request (--http-spin-us);
  /// `caught`: the request came while it spun.
  void RecordSpin(bool caught) {
    spins_.fetch_add(1, std::memory_order_relaxed);
    if (caught) spins_caught_.fetch_add(1, std::memory_order_relaxed);
  }

  /// The text exposition format, with the process's resident memory.
  std::string Render() const;

 private:
  struct Histogram {
    std::vector<double> bounds;
    std::vector<uint64_t> counts;  // per bucket, not cumulative
    double sum = 0;
    uint64_t count = 0;
    void Observe(double value);
  };
  struct PerModel {
    uint64_t requests = 0;
    uint64_t failures = 0;
    uint64_t callers_gone = 0;
    Histogram queue, compute, total, batch;
  };
  PerModel& Get(const std::string& model, const std::string& version);

  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, PerModel> models_;
  std::atomic<int> inflight_{0};
  std::atomic<uint64_t> spins_{0};
  std::atomic<uint64_t> spins_caught_{0};
};

/// Resident set size of this process in bytes (0 when unknown).
size_t ProcessRssBytes();

}  // namespace serve
}  // namespace pdlite
