// One loaded model version: N predictor instances (clones sharing the
// weights), each on its own worker thread, fed from one bounded queue,
// with optional dynamic batching along dim 0.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "paddle_lite/paddle_lite.h"
#include "serve/metrics.h"
#include "serve/types.h"

namespace pdlite {
namespace serve {

/// DIR/<model>/config.json; every key is optional.
struct ModelConfig {
  int instances = 1;
  int threads = 1;  // per instance
  std::string device = "cpu";
  int max_batch_size = 0;  // 0: no batching
  int64_t batch_delay_us = 0;
  int queue_limit = 64;
  int64_t timeout_ms = 0;  // 0: none
  // A request's answer, bit for bit, whatever it was batched with
  // (paddle_lite::Config::EnableBatchInvariance), which costs blocked
  // products over many rows; unset: on when batching (max_batch_size > 0).
  std::optional<bool> batch_invariant;
  // The runtime's limits for a hostile or broken model (paddle_lite::Config
  // SetMaxLoopIterations, SetMemoryLimits); 0 MB: the runtime's default.
  int64_t max_loop_iterations = int64_t{1} << 20;  // 0: none
  int64_t max_tensor_mb = 0;
  int64_t max_run_mb = 0;
  // Which version folders serve (Triton's version_policy): every one, the
  // `latest_versions` highest numbered, or those in `specific_versions`.
  enum class VersionPolicy { kAll, kLatest, kSpecific };
  VersionPolicy version_policy = VersionPolicy::kAll;
  int64_t latest_versions = 1;
  std::vector<int64_t> specific_versions;  // ascending, no repeats
  // The classification extension's labels: output name -> a labels file's
  // path within the model's folder ("labels"), and the labels read from
  // it (by the server, which knows the folder).
  std::map<std::string, std::string> label_files;
  // Shared: every version of the model, and every copy of the config,
  // holds the same ones.
  std::map<std::string, std::shared_ptr<const std::vector<std::string>>> labels;
};

/// Parses config.json's text; false with `error` set on malformed JSON,
/// a wrong type or range, or an unknown key.
bool ParseModelConfig(const std::string& text,
                      ModelConfig* config,
                      std::string* error);

/// A count of events and their total duration.
struct DurationStat {
  uint64_t count = 0;
  uint64_t ns = 0;
  void Add(uint64_t duration_ns) {
    ++count;
    ns += duration_ns;
  }
};

/// Runs of one batch size: how long their inputs took to copy in, the
/// model to run, and the outputs to copy out.
struct BatchStat {
  int64_t batch_size = 0;
  DurationStat compute_input, compute_infer, compute_output;
};

/// A model version's figures since it loaded, as the protocol's
/// statistics extension (Triton's) reports them.
struct VersionStatistics {
  std::string name;
  std::string version;
  uint64_t last_inference_ms = 0;  // since the Unix epoch; 0: none yet
  uint64_t inference_count = 0;    // rows answered (1 per unbatched request)
  uint64_t execution_count = 0;    // model runs
  // Per request: answered, refused or failed (end to end in the model
  // version), and for those answered, the queue and their run's parts.
  DurationStat success, fail, queue;
  DurationStat compute_input, compute_infer, compute_output;
  std::vector<BatchStat> batches;  // ascending batch size
};

/// A version's configuration as Triton's model configuration extension
/// reports it (its field names in the comments).
struct ServedConfig {
  struct Tensor {
    std::string name;
    std::string data_type;       // "TYPE_FP32", ...
    std::vector<int64_t> dims;   // without dim 0 when max_batch_size > 0
    std::string label_filename;  // outputs: config.json's "labels" file
  };
  int max_batch_size = 0;  // 0 unless requests are batched
  std::vector<Tensor> inputs, outputs;
  int instance_count = 1;
  std::string instance_kind = "KIND_CPU";  // KIND_GPU, or KIND_MODEL for a
                                           // plugin's device
  std::vector<int> gpus;
  int64_t max_queue_delay_us = -1;  // dynamic_batching; -1: none
};

class ModelVersion {
 public:
  /// Loads `dir` (a model folder as `pdlite run --model` takes it). A load
  /// failure leaves the version not ready, with the loader's message.
  ModelVersion(std::string name,
               std::string version,
               const std::string& dir,
               const ModelConfig& config,
               Metrics* metrics);
  /// A version that failed before loading (a bad config.json).
  ModelVersion(std::string name, std::string version, std::string error);
  ~ModelVersion();

  const std::string& name() const { return name_; }
  const std::string& version() const { return version_; }
  bool ready() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  const ModelConfig& config() const { return config_; }
  /// Whether requests are batched along dim 0 (max_batch_size set and
  /// every input's dim 0 open); turns false for good if a batched run's
  /// outputs cannot be split by rows.
  bool batches() const { return batchable_; }
  ServedConfig Served() const;
  const std::vector<paddle_lite::TensorInfo>& inputs() const { return inputs_; }
  const std::vector<paddle_lite::TensorInfo>& outputs() const {
    return outputs_;
  }

  /// Called once with a request's answer: on the caller's thread when the
  /// request ran there or was refused, else on a worker's, or on the
  /// thread that expires deadlines.
  using Done = std::function<void(InferResponse)>;

  /// Checks, queues and runs one request, and calls `done` with its
  /// answer. Thread-safe. Refused at once (ResourceExhausted) when the
  /// queue is full. With nothing queued and an instance idle, a request that
  /// does not wait for a batch (no batching, or batch_delay_us 0) of a
  /// one-thread CPU instance runs on the caller's thread, and `done` is
  /// called before this returns; otherwise this returns once the request
  /// is queued, without waiting for it.
  void InferAsync(InferRequest request, Done done);

  VersionStatistics Statistics() const;

  /// Requests waiting in the queue or in a batch that waits for more
  /// (batch_delay_us), and whether an instance is running one (for tests
  /// and metrics).
  size_t queued() const;
  bool busy() const;

  /// The server is draining (SIGTERM): batches stop waiting out
  /// batch_delay_us and run with what they have, so that a drain never
  /// waits for requests that will not come. Requests are still taken.
  void Drain();
  /// Stops taking requests, answers every queued one, joins the workers.
  void Stop();

 private:
  struct Pending;
  struct Instance;
  // How long one run's parts took.
  struct RunTimes {
    uint64_t input_ns = 0, infer_ns = 0, output_ns = 0;
  };

  Status Validate(const InferRequest& request) const;
  // queued(), with mutex_ held.
  size_t Waiting() const;
  // Replaces the outputs the request asks to classify by their classes.
  void ClassifyOutputs(const InferRequest& request,
                       InferResponse* response) const;
  // How long a request waited: until it started running, or until `now`
  // for one answered without running.
  static std::chrono::steady_clock::duration QueuedFor(
      const Pending& pending, std::chrono::steady_clock::time_point now);
  // Records the request's metrics and hands its answer to its caller.
  void Complete(Pending* pending, InferResponse response);
  // An answer of this version with `status` and no outputs.
  InferResponse Refusal(Status status) const;
  // Answers a request whose deadline passed in the queue. Expire and
  // Drop run on the workers and the deadline thread, so they throw
  // nothing: an answer that cannot be made is AnswerUnanswered's.
  void Expire(Pending* pending) noexcept;
  // Whether the caller of a queued request has gone (InferRequest::
  // abandoned); Drop answers such a request CANCELLED.
  static bool Abandoned(const Pending& pending);
  void Drop(Pending* pending) noexcept;
  // Answers `pending`, unless answered already, RESOURCE_EXHAUSTED, after
  // a worker's work threw (memory running out while it answered, recorded
  // a metric or built a message): a thread's exception would end the
  // process, and a request never answered would hold its caller. Counted
  // as a failure, unless Complete counted it first.
  void AnswerUnanswered(Pending* pending) noexcept;
  // Runs one request alone, timing it and counting a batch of one.
  InferResponse RunTimed(Instance* instance, Pending* pending);
  void WorkerLoop(Instance* instance);
  // Answers queued requests whose deadline passed while every instance
  // was busy (the workers check deadlines only when they take a request).
  void ExpireLoop();
  // Takes the next request and, when batching, compatible ones after it
  // (TakeGroup); answers what it took if that throws, and goes on.
  std::vector<std::shared_ptr<Pending>> TakeWork(
      Instance* instance, std::unique_lock<std::mutex>* lock);
  // TakeWork's taking: every request out of the queue is in `taken` until
  // it is answered or returned.
  std::vector<std::shared_ptr<Pending>> TakeGroup(
      Instance* instance,
      std::unique_lock<std::mutex>* lock,
      std::vector<std::shared_ptr<Pending>>* taken);
  // Whether `p` may be run in one batch with `first`: the same inputs, of
  // the same types and ranks and dims past 0.
  static bool Joinable(const Pending& first, const Pending& p);
  // Whether `p` would join the batch a worker is gathering (mutex_ held).
  bool JoinsFormingBatch(const Pending& p) const;
  // An idle instance, marked busy, for a request to run on its own
  // thread; nullptr when it must queue (see Infer).
  Instance* TakeIdleInstance(bool may_run_inline);
  bool AnyBusy() const;  // with mutex_ held
  void RunGroup(Instance* instance,
                std::vector<std::shared_ptr<Pending>>& group);
  // `past_limit`, when given, says whether the run failed on one of the
  // runtime's limits (memory, loop iterations), which the answer's status
  // does not tell apart from bad input.
  InferResponse RunOne(paddle_lite::Predictor* predictor,
                       const InferRequest& request,
                       RunTimes* times,
                       bool* past_limit = nullptr) const;
  // The rows a request counts for in the statistics: dim 0 for a model
  // that batches, else 1.
  int64_t CountedRows(const Pending& pending) const;
  void RecordExecution(int64_t batch_size, const RunTimes& times);

  std::string name_;
  std::string version_;
  std::string error_;
  ModelConfig config_;
  Metrics* metrics_ = nullptr;
  std::vector<paddle_lite::TensorInfo> inputs_;
  std::vector<paddle_lite::TensorInfo> outputs_;
  // Every input declares dim 0 open, no LoD, no output declares a fixed
  // dim 0, and max_batch_size > 0; cleared when a batched run's outputs
  // cannot be split by rows, or after kFailedBatchesToStop batches in a
  // row fail (not on a limit) where their requests ran alone.
  std::atomic<bool> batchable_{false};
  // Whether a batch that failed where its requests ran alone was logged;
  // how many such batches came in a row, and how many stop batching.
  std::atomic<bool> batch_failure_logged_{false};
  std::atomic<int> failed_batches_in_a_row_{0};
  static constexpr int kFailedBatchesToStop = 3;

  mutable std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable deadline_queued_;
  std::deque<std::shared_ptr<Pending>> queue_;
  bool stopping_ = false;
  bool draining_ = false;  // Drain()
  // Set once the workers have drained the queue (Stop).
  bool expirer_stopping_ = false;
  // The batch a worker waits for more requests to join (batch_delay_us),
  // by its first request, and its rows so far; one at a time, so that a
  // request arriving then joins it rather than begin a batch of its own
  // on another instance.
  const Pending* forming_ = nullptr;
  int64_t forming_rows_ = 0;
  // Its requests, which wait as queued ones do (queue_limit counts them).
  size_t forming_members_ = 0;
  std::vector<std::unique_ptr<Instance>> instances_;
  std::thread expirer_;
  // The statistics extension's figures. Batch sizes past kMaxBatchStats
  // distinct ones are counted in the totals only: a client chooses them.
  static constexpr size_t kMaxBatchStats = 64;
  mutable std::mutex stats_mutex_;
  VersionStatistics stats_;
  std::map<int64_t, BatchStat> batch_stats_;
  // When ExpireLoop wakes next; a request due sooner wakes it.
  std::chrono::steady_clock::time_point expire_at_ =
      std::chrono::steady_clock::time_point::max();
};

}  // namespace serve
}  // namespace pdlite
