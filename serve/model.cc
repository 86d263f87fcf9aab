#include "serve/model.h"

#include <glog/logging.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <type_traits>

#include "serve/classification.h"

namespace pdlite {
namespace serve {

using Clock = std::chrono::steady_clock;
using paddle_lite::DataType;
using paddle_lite::TensorInfo;

namespace {

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// Reads config.json's "version_policy", in Triton's form: {"all": {}},
// {"latest": {"num_versions": N}} or {"specific": {"versions": [...]}}.
bool ParseVersionPolicy(const nlohmann::json& value,
                        ModelConfig* config,
                        std::string* error) {
  const std::string expected =
      "\"version_policy\" must be {\"all\": {}}, {\"latest\": "
      "{\"num_versions\": N}} or {\"specific\": {\"versions\": [...]}}, "
      "got " +
      value.dump();
  if (!value.is_object() || value.size() != 1 ||
      !value.begin().value().is_object()) {
    *error = expected;
    return false;
  }
  const std::string kind = value.begin().key();
  const nlohmann::json& body = value.begin().value();
  using Policy = ModelConfig::VersionPolicy;
  if (kind == "all" && body.empty()) {
    config->version_policy = Policy::kAll;
    return true;
  }
  if (kind == "latest" && body.size() == 1 && body.contains("num_versions")) {
    const nlohmann::json& n = body["num_versions"];
    if (!n.is_number_integer() || n.get<int64_t>() < 1 ||
        n.get<int64_t>() > 1000) {
      *error =
          "\"version_policy\": \"num_versions\" must be an integer in "
          "[1, 1000], got " +
          n.dump();
      return false;
    }
    config->version_policy = Policy::kLatest;
    config->latest_versions = n.get<int64_t>();
    return true;
  }
  if (kind == "specific" && body.size() == 1 && body.contains("versions")) {
    const nlohmann::json& list = body["versions"];
    std::vector<int64_t> versions;
    bool ok = list.is_array() && !list.empty() && list.size() <= 1000;
    for (size_t i = 0; ok && i < list.size(); ++i) {
      ok = list[i].is_number_integer() && list[i].get<int64_t>() >= 0;
      if (ok) versions.push_back(list[i].get<int64_t>());
    }
    if (!ok) {
      *error =
          "\"version_policy\": \"versions\" must be a list of 1 to "
          "1000 version numbers (integers >= 0), got " +
          list.dump();
      return false;
    }
    std::sort(versions.begin(), versions.end());
    versions.erase(std::unique(versions.begin(), versions.end()),
                   versions.end());
    config->version_policy = Policy::kSpecific;
    config->specific_versions = std::move(versions);
    return true;
  }
  *error = expected;
  return false;
}

// Tensors' names for messages: "'a', 'b'".
std::string KnownNames(const std::vector<TensorInfo>& infos) {
  std::string out;
  for (auto& i : infos) out += (out.empty() ? "'" : ", '") + i.name + "'";
  return out;
}

// Reads config.json's "labels": {"<output>": "<file>", ...}, each file a
// relative path that stays inside the model's folder.
bool ParseLabelFiles(const nlohmann::json& value,
                     ModelConfig* config,
                     std::string* error) {
  if (!value.is_object()) {
    *error = "\"labels\" must be an object, output name -> labels file, got " +
             value.dump();
    return false;
  }
  for (auto& item : value.items()) {
    const std::string path =
        item.value().is_string() ? item.value().get<std::string>() : "";
    bool inside = !path.empty() && path.front() != '/';
    for (const std::string& part : SplitPath(path)) {
      inside &= !part.empty() && part != "." && part != "..";
    }
    if (!inside) {
      *error = "\"labels\": output '" + item.key() +
               "' needs a file path relative to the model's folder, without "
               "'.' or '..', got " +
               item.value().dump();
      return false;
    }
    config->label_files[item.key()] = path;
  }
  return true;
}

}  // namespace

bool ParseModelConfig(const std::string& text,
                      ModelConfig* config,
                      std::string* error) {
  // A load's config comes from a client: bounded before it is parsed (see
  // JsonWithinShape). A real config nests a few levels and holds a few
  // values.
  constexpr int kConfigDepth = 32;
  constexpr size_t kConfigValues = 100000;
  if (!JsonWithinShape(text, kConfigDepth, kConfigValues)) {
    *error = "nests deeper than " + std::to_string(kConfigDepth) +
             " or holds more than " + std::to_string(kConfigValues) + " values";
    return false;
  }
  nlohmann::json j;
  if (!ParseJson(text, &j, error)) {
    *error = "not valid JSON: " + *error;
    return false;
  }
  if (!j.is_object()) {
    *error = "not a JSON object";
    return false;
  }
  for (auto& item : j.items()) {
    // Named, not structured bindings: lambdas capture those only in C++20.
    const std::string key = item.key();
    const auto& value = item.value();
    auto integer = [&](int64_t min, int64_t max, auto* field) {
      if (!value.is_number_integer() || value.get<int64_t>() < min ||
          value.get<int64_t>() > max) {
        *error = "\"" + key + "\" must be an integer in [" +
                 std::to_string(min) + ", " + std::to_string(max) + "], got " +
                 value.dump();
        return false;
      }
      *field = static_cast<std::remove_pointer_t<decltype(field)>>(
          value.get<int64_t>());
      return true;
    };
    bool ok = true;
    if (key == "instances") {
      ok = integer(1, 256, &config->instances);
    } else if (key == "threads") {
      ok = integer(1, 256, &config->threads);
    } else if (key == "max_batch_size") {
      ok = integer(0, 1 << 16, &config->max_batch_size);
    } else if (key == "batch_delay_us") {
      ok = integer(0, 60000000, &config->batch_delay_us);
    } else if (key == "queue_limit") {
      ok = integer(1, 1 << 20, &config->queue_limit);
    } else if (key == "timeout_ms") {
      ok = integer(0, int64_t{1} << 40, &config->timeout_ms);
    } else if (key == "max_loop_iterations") {
      ok = integer(0, int64_t{1} << 40, &config->max_loop_iterations);
    } else if (key == "max_tensor_mb") {
      ok = integer(0, int64_t{1} << 30, &config->max_tensor_mb);
    } else if (key == "max_run_mb") {
      ok = integer(0, int64_t{1} << 30, &config->max_run_mb);
    } else if (key == "version_policy") {
      ok = ParseVersionPolicy(value, config, error);
    } else if (key == "labels") {
      ok = ParseLabelFiles(value, config, error);
    } else if (key == "batch_invariant") {
      if (!value.is_boolean()) {
        *error =
            "\"batch_invariant\" must be true or false, got " + value.dump();
        return false;
      }
      config->batch_invariant = value.get<bool>();
    } else if (key == "device") {
      if (!value.is_string()) {
        *error = "\"device\" must be a string, got " + value.dump();
        return false;
      }
      config->device = value.get<std::string>();
    } else {
      *error = "unknown key \"" + key +
               "\" (known: instances, threads, device, max_batch_size, "
               "batch_delay_us, queue_limit, timeout_ms, batch_invariant, "
               "max_loop_iterations, max_tensor_mb, max_run_mb, "
               "version_policy, labels)";
      return false;
    }
    if (!ok) return false;
  }
  return true;
}

struct ModelVersion::Pending {
  InferRequest request;
  int64_t rows = 0;
  bool batchable = false;
  Clock::time_point enqueued;
  Clock::time_point deadline = Clock::time_point::max();
  // `deadline` is the caller's (InferRequest::caller_deadline), not the
  // queue's timeout.
  bool deadline_is_callers = false;
  // Answered without running because its caller had gone.
  bool caller_gone = false;
  // Counted in the metrics (Complete got that far).
  bool recorded = false;
  Clock::time_point started;
  int64_t timeout_us = 0;
  double compute_s = 0;
  // The run that answered it (its batch's, when batched).
  RunTimes times;
  ModelVersion::Done done;
};

struct ModelVersion::Instance {
  std::unique_ptr<paddle_lite::Predictor> predictor;
  std::thread thread;
  // Running a request, on its worker or inline on the request's thread
  // (guarded by mutex_).
  bool busy = false;
};

ModelVersion::ModelVersion(std::string name,
                           std::string version,
                           std::string error)
    : name_(std::move(name)),
      version_(std::move(version)),
      error_(std::move(error)) {}

ModelVersion::ModelVersion(std::string name,
                           std::string version,
                           const std::string& dir,
                           const ModelConfig& config,
                           Metrics* metrics)
    : name_(std::move(name)),
      version_(std::move(version)),
      config_(config),
      metrics_(metrics) {
  try {
    paddle_lite::Config pconfig(dir);
    pconfig.SetCpuThreads(config.threads);
    pconfig.SetDevice(config.device);
    // As the runtime spells it ("CPU", "cpu:0" -> "cpu"; "GPU:1" ->
    // "cuda:1"), for what is compared and reported below.
    config_.device = pconfig.device();
    pconfig.SetMaxLoopIterations(config.max_loop_iterations);
    pconfig.SetMemoryLimits(static_cast<size_t>(config.max_tensor_mb) << 20,
                            static_cast<size_t>(config.max_run_mb) << 20);
    // A predictor makes new shapes' primitives ahead on a core its threads
    // leave free; here the instances together may use every core, and
    // under load that core serves requests.
    const unsigned cores = std::thread::hardware_concurrency();
    pconfig.EnableMakeAhead(static_cast<unsigned>(config.instances) *
                                static_cast<unsigned>(config.threads) <
                            cores);
    // The same request gets the same answer, bit for bit, however it is
    // batched and whenever it comes: the generic kernels round differently
    // from oneDNN's, and a predictor's first runs (and, by timing, some
    // new shapes) go to them, so served models keep every run on the
    // preferred kernels; and a batching model's products compute their
    // rows alike however many run together (unless its config says not).
    pconfig.EnableGenericKernels(false);
    pconfig.EnableBatchInvariance(
        config.batch_invariant.value_or(config.max_batch_size > 0));
    auto first = paddle_lite::CreatePredictor(pconfig);
    inputs_ = first->GetInputInfo();
    outputs_ = first->GetOutputInfo();
    for (auto& labels : config.label_files) {
      // Named, not bound: lambdas capture bindings only in C++20.
      const std::string& output = labels.first;
      const std::string& file = labels.second;
      if (std::none_of(outputs_.begin(), outputs_.end(),
                       [&](const TensorInfo& o) { return o.name == output; })) {
        throw std::invalid_argument(
            "config.json: \"labels\" names output '" + output + "' (" + file +
            "), which the model does not have; its outputs are " +
            KnownNames(outputs_));
      }
    }
    for (int i = 1; i < config.instances; ++i) {
      instances_.push_back(std::make_unique<Instance>());
      instances_.back()->predictor = first->Clone();
    }
    instances_.insert(instances_.begin(), std::make_unique<Instance>());
    instances_.front()->predictor = std::move(first);
  } catch (const std::exception& e) {
    error_ = e.what();
    instances_.clear();
    return;
  }
  // Why a model configured to batch cannot, for the log: the first
  // reason found.
  std::string unbatchable = inputs_.empty() ? "it has no inputs" : "";
  for (auto& in : inputs_) {
    if (!unbatchable.empty()) break;
    if (in.lod_level > 0) {
      unbatchable = "input '" + in.name + "' takes a LoD";
    } else if (in.shape.empty() || in.shape[0] != -1) {
      unbatchable = "input '" + in.name + "' does not declare dim 0 as -1";
    }
  }
  // An output declared with a fixed dim 0 is not one row a request: split
  // by rows when the batch's rows happened to equal it, each request
  // would get a piece of it. (An output declared with no shape is judged
  // by its runs, below.)
  for (auto& out : outputs_) {
    if (unbatchable.empty() && !out.shape.empty() && out.shape[0] != -1) {
      unbatchable = "output '" + out.name + "' declares dim 0 as " +
                    std::to_string(out.shape[0]) + ", not -1";
    }
  }
  batchable_ = config.max_batch_size > 0 && unbatchable.empty();
  if (config.max_batch_size > 0 && !unbatchable.empty()) {
    LOG(WARNING) << "model '" << name_ << "' version " << version_
                 << ": max_batch_size " << config.max_batch_size
                 << " in config.json, but its requests are not batched: "
                 << unbatchable;
  }
  try {
    for (auto& instance : instances_) {
      instance->thread =
          std::thread([this, i = instance.get()] { WorkerLoop(i); });
    }
    expirer_ = std::thread([this] { ExpireLoop(); });
  } catch (const std::system_error& e) {
    // Out of threads or memory: those started stop, and the version is not
    // ready, saying why (a thread left running would end the process).
    Stop();
    error_ = "cannot start its " + std::to_string(instances_.size() + 1) +
             " threads: " + e.what();
    instances_.clear();
  }
}

ModelVersion::~ModelVersion() { Stop(); }

size_t ModelVersion::queued() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return Waiting();
}

size_t ModelVersion::Waiting() const {
  return queue_.size() + forming_members_;
}

void ModelVersion::Drain() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    draining_ = true;
  }
  work_ready_.notify_all();
}

void ModelVersion::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  // The workers answer what is queued; until they are done, requests
  // whose deadlines pass meanwhile are still answered then (an unload
  // stops a version with its queue full), so the expirer stops last.
  for (auto& instance : instances_) {
    if (instance->thread.joinable()) instance->thread.join();
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    expirer_stopping_ = true;
  }
  deadline_queued_.notify_all();
  if (expirer_.joinable()) expirer_.join();
  // With the workers gone, a busy instance is a request running inline
  // (see Infer): it holds the instance until its run ends, and is answered
  // on its own thread just after (its caller holds the version until
  // then).
  std::unique_lock<std::mutex> lock(mutex_);
  work_ready_.wait(lock, [&] { return !AnyBusy(); });
}

bool ModelVersion::AnyBusy() const {
  return std::any_of(
      instances_.begin(), instances_.end(),
      [](const std::unique_ptr<Instance>& i) { return i->busy; });
}

bool ModelVersion::busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return AnyBusy();
}

ModelVersion::Instance* ModelVersion::TakeIdleInstance(bool may_run_inline) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_ || !may_run_inline || !queue_.empty()) return nullptr;
  for (auto& instance : instances_) {
    if (!instance->busy) {
      instance->busy = true;
      return instance.get();
    }
  }
  return nullptr;
}

Status ModelVersion::Validate(const InferRequest& request) const {
  const std::string where = "model '" + name_ + "' version " + version_;
  auto bad = [](std::string message) {
    return Status::Error(StatusCode::kInvalidArgument, std::move(message));
  };
  std::vector<bool> seen(inputs_.size(), false);
  for (auto& in : request.inputs) {
    auto it =
        std::find_if(inputs_.begin(), inputs_.end(),
                     [&](const TensorInfo& i) { return i.name == in.name; });
    if (it == inputs_.end()) {
      return bad(where + " has no input '" + in.name + "'; its inputs are " +
                 KnownNames(inputs_));
    }
    const TensorInfo& info = *it;
    size_t index = static_cast<size_t>(it - inputs_.begin());
    if (seen[index])
      return bad(where + ": input '" + in.name + "' given twice");
    seen[index] = true;
    const std::string what = where + ", input '" + in.name + "': ";
    if (in.type != info.type) {
      return bad(what + "datatype " + ProtocolTypeName(in.type) +
                 ", expected " + ProtocolTypeName(info.type));
    }
    if (!info.shape.empty() && in.shape.size() != info.shape.size()) {
      return bad(what + "shape " + ShapeString(in.shape) + " has rank " +
                 std::to_string(in.shape.size()) + ", expected rank " +
                 std::to_string(info.shape.size()) + " " +
                 ShapeString(info.shape));
    }
    // Declared sizes other than -1 are hints only (programs are often
    // saved with stale ones), so the runtime judges them, not this check.
    // A shape whose non-zero dims multiply past 2^64 is refused even with
    // a zero dim, as the runtime refuses it.
    uint64_t count = 1;
    bool overflow = false;
    bool empty = false;
    for (int64_t d : in.shape) {
      if (d < 0) {
        return bad(what + "shape " + ShapeString(in.shape) +
                   " has a negative dim");
      }
      if (d == 0) {
        empty = true;
      } else {
        overflow |=
            __builtin_mul_overflow(count, static_cast<uint64_t>(d), &count);
      }
    }
    if (overflow) {
      return bad(what + "shape " + ShapeString(in.shape) +
                 " is too large: its non-zero dims multiply past 2^64 (got " +
                 std::to_string(in.element_bytes() / ElementSize(in.type)) +
                 " elements)");
    }
    if (empty) count = 0;
    const size_t element = ElementSize(in.type);
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(count, element, &bytes) ||
        bytes != in.element_bytes()) {
      return bad(what + "shape " + ShapeString(in.shape) + " needs " +
                 std::to_string(count) + " elements, got " +
                 std::to_string(in.element_bytes() / element));
    }
    if (!in.lod.empty()) {
      for (size_t level = 0; level < in.lod.size(); ++level) {
        const auto& offsets = in.lod[level];
        bool ok = offsets.size() >= 2 && offsets[0] == 0 &&
                  std::is_sorted(offsets.begin(), offsets.end());
        // Not framework::LoDMismatch: the server speaks the public API
        // only. An empty level below fails on its own turn.
        size_t end =
            level + 1 < in.lod.size()
                ? std::max<size_t>(in.lod[level + 1].size(), 1) - 1
                : static_cast<size_t>(in.shape.empty() ? 0 : in.shape[0]);
        if (!ok || offsets.back() != end) {
          return bad(what + "lod level " + std::to_string(level) +
                     " must be offsets from 0, non-decreasing, ending at " +
                     std::to_string(end));
        }
      }
    } else if (info.lod_level > 0) {
      return bad(what +
                 "the model takes a LoD here: give the input "
                 "parameter \"lod\", e.g. [[0, 3, 5]]");
    }
  }
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (!seen[i]) {
      return bad(where + " needs input '" + inputs_[i].name + "' (" +
                 ProtocolTypeName(inputs_[i].type) + " " +
                 ShapeString(inputs_[i].shape) + ")");
    }
  }
  // Each output asked for once: an answer holds a copy of the output for
  // every time it is named, and a name costs a request a few bytes.
  std::vector<bool> asked(outputs_.size(), false);
  for (auto& name : request.outputs) {
    auto it = std::find_if(outputs_.begin(), outputs_.end(),
                           [&](const TensorInfo& o) { return o.name == name; });
    if (it == outputs_.end()) {
      return bad(where + " has no output '" + name + "'; its outputs are " +
                 KnownNames(outputs_));
    }
    const size_t index = static_cast<size_t>(it - outputs_.begin());
    if (asked[index]) {
      return bad(where + ": output '" + name + "' asked for twice");
    }
    asked[index] = true;
  }
  for (auto& asked : request.classification) {
    const std::string& name = asked.first;
    const int64_t count = asked.second;
    if (std::none_of(outputs_.begin(), outputs_.end(),
                     [&](const TensorInfo& o) { return o.name == name; })) {
      return bad(where + " has no output '" + name +
                 "' to classify; its outputs are " + KnownNames(outputs_));
    }
    if (count < 1) {
      return bad(where + ", output '" + name +
                 "': \"classification\" must be >= 1, got " +
                 std::to_string(count));
    }
  }
  return Status{};
}

void ModelVersion::ClassifyOutputs(const InferRequest& request,
                                   InferResponse* response) const {
  // Rows ranked alone while the model batches, as its configuration
  // reports (max_batch_size), the whole output once it does not.
  const bool per_row = batches();
  ClassLimits left;  // all the answer's classified outputs together
  for (TensorData& out : response->outputs) {
    auto asked = request.classification.find(out.name);
    if (asked == request.classification.end()) continue;
    static const std::vector<std::string> kNoLabels;
    auto labels = config_.labels.find(out.name);
    TensorData classes;
    Status status;
    try {
      status =
          Classify(out, asked->second, per_row,
                   labels == config_.labels.end() ? kNoLabels : *labels->second,
                   &classes, &left);
    } catch (const std::bad_alloc&) {
      // On a worker's thread: nothing above it may throw.
      status = Status::Error(
          StatusCode::kResourceExhausted,
          "output '" + out.name + "': out of memory for its classes");
    }
    if (!status.ok()) {
      status.message =
          "model '" + name_ + "' version " + version_ + ", " + status.message;
      response->status = std::move(status);
      response->outputs.clear();
      return;
    }
    out = std::move(classes);
  }
}

Clock::duration ModelVersion::QueuedFor(const Pending& pending,
                                        Clock::time_point now) {
  return pending.started == Clock::time_point{}
             ? now - pending.enqueued
             : pending.started - pending.enqueued;
}

void ModelVersion::Complete(Pending* pending, InferResponse response) {
  if (response.status.ok() && !pending->request.classification.empty()) {
    ClassifyOutputs(pending->request, &response);
  }
  if (pending->request.before_answer) {
    pending->request.before_answer(&response);
  }
  const auto now = Clock::now();
  const Clock::duration queued = QueuedFor(*pending, now);
  if (metrics_) {
    metrics_->RecordRequest(name_, version_, response.status.ok(),
                            Seconds(queued), pending->compute_s,
                            Seconds(now - pending->enqueued),
                            pending->caller_gone);
  }
  pending->recorded = true;
  {
    auto ns = [](Clock::duration d) {
      return static_cast<uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
    };
    std::lock_guard<std::mutex> lock(stats_mutex_);
    if (response.status.ok()) {
      stats_.success.Add(ns(now - pending->enqueued));
      stats_.queue.Add(ns(queued));
      stats_.compute_input.Add(pending->times.input_ns);
      stats_.compute_infer.Add(pending->times.infer_ns);
      stats_.compute_output.Add(pending->times.output_ns);
      stats_.inference_count += static_cast<uint64_t>(CountedRows(*pending));
      stats_.last_inference_ms = static_cast<uint64_t>(
          std::chrono::duration_cast<std::chrono::milliseconds>(
              std::chrono::system_clock::now().time_since_epoch())
              .count());
    } else {
      stats_.fail.Add(ns(now - pending->enqueued));
    }
  }
  // Taken out first: `done` may free what owns the pending request.
  Done done = std::move(pending->done);
  done(std::move(response));
}

InferResponse ModelVersion::Refusal(Status status) const {
  InferResponse response;
  response.model = name_;
  response.version = version_;
  response.status = std::move(status);
  return response;
}

void ModelVersion::Expire(Pending* pending) noexcept {
  try {
    std::string why;
    // Counted as gone also when the queue's timeout came first.
    pending->caller_gone = Abandoned(*pending);
    if (pending->deadline_is_callers) {
      pending->caller_gone = true;
      const auto waited = std::chrono::duration_cast<std::chrono::microseconds>(
                              Clock::now() - pending->enqueued)
                              .count();
      why = "deadline exceeded: the caller's deadline passed after " +
            std::to_string(waited) + " us in the queue (not run)";
    } else {
      why = "deadline exceeded after " + std::to_string(pending->timeout_us) +
            " us in the queue";
    }
    Complete(pending, Refusal(Status::Error(StatusCode::kDeadlineExceeded,
                                            "model '" + name_ + "' version " +
                                                version_ + ": " + why)));
  } catch (...) {
    AnswerUnanswered(pending);
  }
}

bool ModelVersion::Abandoned(const Pending& pending) {
  return pending.request.abandoned && pending.request.abandoned();
}

void ModelVersion::Drop(Pending* pending) noexcept {
  pending->caller_gone = true;
  try {
    Complete(pending,
             Refusal(Status::Error(StatusCode::kCancelled,
                                   "model '" + name_ + "' version " + version_ +
                                       ": the caller cancelled the request "
                                       "while it was queued (not run)")));
  } catch (...) {
    AnswerUnanswered(pending);
  }
}

InferResponse ModelVersion::RunTimed(Instance* instance, Pending* pending) {
  pending->started = Clock::now();
  InferResponse response =
      RunOne(instance->predictor.get(), pending->request, &pending->times);
  pending->compute_s = Seconds(Clock::now() - pending->started);
  if (metrics_) metrics_->RecordBatch(name_, version_, 1);
  // As Triton's: a run that failed has no parts worth averaging.
  if (response.status.ok()) {
    RecordExecution(CountedRows(*pending), pending->times);
  }
  return response;
}

int64_t ModelVersion::CountedRows(const Pending& pending) const {
  // By the model's batching now, as Served() reports it: a model that
  // cannot batch (a LoD input, no batch dimension) counts requests.
  return batches() && pending.rows > 0 ? pending.rows : 1;
}

void ModelVersion::RecordExecution(int64_t batch_size, const RunTimes& times) {
  std::lock_guard<std::mutex> lock(stats_mutex_);
  ++stats_.execution_count;
  auto it = batch_stats_.find(batch_size);
  if (it == batch_stats_.end()) {
    if (batch_stats_.size() >= kMaxBatchStats) return;
    it = batch_stats_.emplace(batch_size, BatchStat{}).first;
    it->second.batch_size = batch_size;
  }
  it->second.compute_input.Add(times.input_ns);
  it->second.compute_infer.Add(times.infer_ns);
  it->second.compute_output.Add(times.output_ns);
}

ServedConfig ModelVersion::Served() const {
  ServedConfig out;
  const bool batches = batchable_;
  out.max_batch_size = batches ? config_.max_batch_size : 0;
  auto describe = [&](const std::vector<TensorInfo>& infos,
                      std::vector<ServedConfig::Tensor>* tensors) {
    for (const TensorInfo& info : infos) {
      ServedConfig::Tensor t;
      t.name = info.name;
      t.data_type = std::string("TYPE_") + ProtocolTypeName(info.type);
      t.dims = info.shape;
      // Batched inputs have an open dim 0 (see batchable_); outputs are
      // split along theirs.
      if (batches && !t.dims.empty()) t.dims.erase(t.dims.begin());
      tensors->push_back(std::move(t));
    }
  };
  describe(inputs_, &out.inputs);
  describe(outputs_, &out.outputs);
  for (ServedConfig::Tensor& t : out.outputs) {
    auto file = config_.label_files.find(t.name);
    if (file != config_.label_files.end()) t.label_filename = file->second;
  }
  out.instance_count = config_.instances;
  const std::string& device = config_.device;
  if (device.rfind("cuda:", 0) == 0) {
    out.instance_kind = "KIND_GPU";
    out.gpus.push_back(std::atoi(device.c_str() + 5));
  } else if (device != "cpu") {
    out.instance_kind = "KIND_MODEL";
  }
  if (batches) out.max_queue_delay_us = config_.batch_delay_us;
  return out;
}

VersionStatistics ModelVersion::Statistics() const {
  std::lock_guard<std::mutex> lock(stats_mutex_);
  VersionStatistics out = stats_;
  out.name = name_;
  out.version = version_;
  for (auto& [size, stat] : batch_stats_) out.batches.push_back(stat);
  return out;
}

void ModelVersion::InferAsync(InferRequest request, Done done) {
  if (!ready()) {
    // Not counted: the version never loaded, so it has no metrics.
    done(Refusal(Status::Error(StatusCode::kUnavailable,
                               "model '" + name_ + "' version " + version_ +
                                   " is not ready: " + error_)));
    return;
  }
  auto pending = std::make_shared<Pending>();
  pending->enqueued = Clock::now();
  pending->done = std::move(done);
  Status valid = Validate(request);
  if (!valid.ok()) return Complete(pending.get(), Refusal(std::move(valid)));
  pending->rows = request.inputs.empty() || request.inputs[0].shape.empty()
                      ? 0
                      : request.inputs[0].shape[0];
  // A request of more rows than a batch holds runs alone, as does one of
  // rows with no elements (nothing to join, and its dim 0 may be anything).
  pending->batchable = batchable_ && pending->rows > 0 &&
                       pending->rows <= config_.max_batch_size;
  for (auto& in : request.inputs) {
    if (!in.lod.empty() || in.shape.empty() || in.shape[0] != pending->rows ||
        std::find(in.shape.begin() + 1, in.shape.end(), 0) != in.shape.end()) {
      pending->batchable = false;
    }
  }
  // A request's own timeout may shorten the model's timeout_ms, not
  // lengthen it, so that a client cannot hold its place in the queue past
  // what the model's operator allows; 0, or none, is the model's (as
  // Triton's queue policy takes it).
  int64_t timeout_us = config_.timeout_ms * 1000;  // 0: no limit
  if (request.timeout_us > 0 &&
      (timeout_us == 0 || request.timeout_us < timeout_us)) {
    timeout_us = request.timeout_us;
  }
  pending->timeout_us = timeout_us;
  pending->request = std::move(request);
  // Longer timeouts are none: past about 290 years from the clock's epoch
  // the deadline's nanoseconds would overflow (a client may send INT64_MAX
  // for "no limit").
  constexpr int64_t kLongestTimeoutUs = int64_t{1000000} * 86400 * 365 * 100;
  if (timeout_us > 0 && timeout_us < kLongestTimeoutUs) {
    pending->deadline =
        pending->enqueued + std::chrono::microseconds(timeout_us);
  }
  if (pending->request.caller_deadline < pending->deadline) {
    pending->deadline = pending->request.caller_deadline;
    pending->deadline_is_callers = true;
    // Nobody waits for the answer any more.
    if (Clock::now() >= pending->deadline) {
      pending->caller_gone = true;
      return Complete(
          pending.get(),
          Refusal(Status::Error(StatusCode::kDeadlineExceeded,
                                "model '" + name_ + "' version " + version_ +
                                    ": deadline exceeded: the caller's "
                                    "deadline had passed when the request "
                                    "arrived (not run)")));
    }
  }
  // With nothing queued and an instance idle, the request runs on this
  // thread: handing it to the worker costs a wake-up and two context
  // switches, about what the rest of the server adds. Requests that may
  // be batched with a delay wait in the queue for others; with no delay a
  // worker would batch only what is queued already, which is nothing
  // here, so they run at once too (and those arriving meanwhile queue,
  // for a worker to batch). Requests of instances with an OpenMP team or
  // a device always queue (each calling thread would get a team of its
  // own, or would have to bind the device).
  const bool may_wait_for_batch = pending->batchable &&
                                  config_.max_batch_size >= 2 &&
                                  config_.batch_delay_us > 0;
  const bool may_run_inline =
      !may_wait_for_batch && config_.threads == 1 && config_.device == "cpu";
  if (Instance* idle = TakeIdleInstance(may_run_inline)) {
    InferResponse response;
    {
      // Frees the instance however the run ends, and before the answer
      // goes out: a client's next request must find it free. Only a
      // queued request (for a worker) or Stop waits for that: waking the
      // workers after every inline run for nothing cost a futex call and
      // two context switches a request.
      struct Release {
        ModelVersion* self;
        Instance* instance;
        ~Release() {
          bool waited_for;
          {
            std::lock_guard<std::mutex> lock(self->mutex_);
            instance->busy = false;
            waited_for = self->stopping_ || !self->queue_.empty();
          }
          if (waited_for) self->work_ready_.notify_all();
        }
      } release{this, idle};
      response = RunTimed(idle, pending.get());
    }
    Complete(pending.get(), std::move(response));
    return;
  }
  Status queued;
  bool wake_expirer = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) {
      // Stopped by an unload that gave up waiting for the request's
      // holder, or by a shutdown.
      queued = Status::Error(
          StatusCode::kUnavailable,
          "model '" + name_ + "' version " + version_ +
              ": stopped (unloaded, or the server is shutting down)");
    } else if (Waiting() >= static_cast<size_t>(config_.queue_limit)) {
      queued = Status::Error(
          StatusCode::kResourceExhausted,
          "model '" + name_ + "' version " + version_ +
              ": the queue is full (" + std::to_string(config_.queue_limit) +
              " requests waiting, queue_limit in config.json)");
    } else {
      queue_.push_back(pending);
      wake_expirer = pending->deadline < expire_at_;
    }
  }
  if (!queued.ok()) return Complete(pending.get(), Refusal(std::move(queued)));
  work_ready_.notify_all();
  if (wake_expirer) deadline_queued_.notify_one();
}

void ModelVersion::ExpireLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!expirer_stopping_) {
    expire_at_ = Clock::time_point::max();
    for (auto& p : queue_) expire_at_ = std::min(expire_at_, p->deadline);
    if (expire_at_ == Clock::time_point::max()) {
      deadline_queued_.wait(lock);
    } else {
      deadline_queued_.wait_until(lock, expire_at_);
    }
    // Whoever takes a request out of the queue answers it: here, the
    // expired ones; a worker, the rest.
    std::vector<std::shared_ptr<Pending>> expired;
    const auto now = Clock::now();
    try {
      for (auto it = queue_.begin(); it != queue_.end();) {
        if (now >= (*it)->deadline) {
          expired.push_back(*it);
          it = queue_.erase(it);
        } else {
          ++it;
        }
      }
    } catch (const std::bad_alloc&) {
      // Those taken go now; the others stay queued, for the next round.
    }
    if (expired.empty()) continue;
    // A worker may have waited for the front, left to a forming batch; or,
    // once stopping, for the queue to empty.
    work_ready_.notify_all();
    lock.unlock();
    for (auto& p : expired) Expire(p.get());
    lock.lock();
  }
}

bool ModelVersion::Joinable(const Pending& first, const Pending& p) {
  if (!p.batchable || p.request.inputs.size() != first.request.inputs.size()) {
    return false;
  }
  for (auto& a : first.request.inputs) {
    auto it =
        std::find_if(p.request.inputs.begin(), p.request.inputs.end(),
                     [&](const TensorData& b) { return b.name == a.name; });
    if (it == p.request.inputs.end() || it->type != a.type ||
        it->shape.size() != a.shape.size() ||
        !std::equal(a.shape.begin() + 1, a.shape.end(),
                    it->shape.begin() + 1)) {
      return false;
    }
  }
  return true;
}

bool ModelVersion::JoinsFormingBatch(const Pending& p) const {
  // Batchable rows are at most max_batch_size: the sum cannot overflow.
  return forming_ != nullptr && p.batchable &&
         p.rows <= config_.max_batch_size - forming_rows_ &&
         Joinable(*forming_, p);
}

std::vector<std::shared_ptr<ModelVersion::Pending>> ModelVersion::TakeWork(
    Instance* instance, std::unique_lock<std::mutex>* lock) {
  for (;;) {
    std::vector<std::shared_ptr<Pending>> group;
    try {
      return TakeGroup(instance, lock, &group);
    } catch (...) {
      // Memory ran out as the group grew (or a caller's abandoned() threw).
      // Every request taken out of the queue is in `group` (a push that
      // throws adds nothing, and what it would add is still queued or
      // still in the group): they are answered, and the worker goes on.
      // Out of this thread, the exception ended the process.
      if (!lock->owns_lock()) lock->lock();
      if (!group.empty() && forming_ == group.front().get()) {
        forming_ = nullptr;
        forming_members_ = 0;
      }
      instance->busy = false;
      std::vector<std::shared_ptr<Pending>> unanswered = std::move(group);
      lock->unlock();
      for (auto& p : unanswered) AnswerUnanswered(p.get());
      unanswered.clear();
      lock->lock();
      work_ready_.notify_all();
    }
  }
}

std::vector<std::shared_ptr<ModelVersion::Pending>> ModelVersion::TakeGroup(
    Instance* instance,
    std::unique_lock<std::mutex>* lock,
    std::vector<std::shared_ptr<Pending>>* taken) {
  std::vector<std::shared_ptr<Pending>>& group = *taken;
  for (;;) {
    while (group.empty()) {
      // The instance may be running a request inline (see Infer). A
      // request that would join the batch another worker gathers is left
      // to it.
      work_ready_.wait(*lock, [&] {
        return (stopping_ && queue_.empty()) ||
               (!queue_.empty() && !instance->busy &&
                !JoinsFormingBatch(*queue_.front()));
      });
      if (queue_.empty()) return {};  // stopping, nothing left
      // Room first: a request out of the queue is always in the group.
      group.reserve(1);
      group.push_back(queue_.front());
      queue_.pop_front();
      Pending* first = group.front().get();
      if (Clock::now() >= first->deadline) {
        auto expired = std::move(group.front());
        group.clear();
        lock->unlock();
        Expire(expired.get());
        lock->lock();
        continue;
      }
      if (Abandoned(*first)) {
        auto gone = std::move(group.front());
        group.clear();
        lock->unlock();
        Drop(gone.get());
        lock->lock();
        continue;
      }
      instance->busy = true;  // before the batch delay lets the lock go
    }
    // A copy: `group` grows below.
    const std::shared_ptr<Pending> first = group.front();
    if (!batchable_ || !first->batchable || config_.max_batch_size < 2) {
      return std::move(group);
    }
    int64_t rows = first->rows;
    // A request that would join the batch but whose caller went away is
    // taken out of the queue instead and answered at once. Only those are
    // asked (a poll() or a lock each): gathering runs under the lock at
    // every request's arrival.
    // Requests that arrive while the lock is let go to answer one are
    // gathered on the next pass: their wake-up found no worker waiting.
    // What leaves the queue is in `group` or answered before anything
    // else may throw (see TakeWork).
    auto gather = [&] {
      for (;;) {
        std::shared_ptr<Pending> gone;
        for (auto it = queue_.begin(); it != queue_.end();) {
          if ((*it)->batchable &&
              (*it)->rows <= config_.max_batch_size - rows &&
              Clock::now() < (*it)->deadline && Joinable(*first, **it)) {
            if (Abandoned(**it)) {
              gone = *it;
              queue_.erase(it);
              break;
            }
            group.push_back(*it);
            rows += (*it)->rows;
            if (forming_ == first.get()) {
              ++forming_members_;
              forming_rows_ = rows;
            }
            it = queue_.erase(it);
          } else {
            ++it;
          }
        }
        if (!gone) return;
        lock->unlock();
        Drop(gone.get());
        gone.reset();
        lock->lock();
      }
    };
    // One worker waits out the delay at a time; while it does, the others
    // take only what cannot join its batch, and run it without waiting.
    // Set before the first gather, which lets the lock go to answer the
    // abandoned: what it took counts against queue_limit meanwhile.
    const bool waits = forming_ == nullptr && config_.batch_delay_us > 0;
    if (waits) {
      forming_ = first.get();
      forming_members_ = 1;
      forming_rows_ = rows;
    }
    gather();
    // What is left queued may be another worker's to take (one that was
    // woken while this batch could still take it).
    if (waits && !queue_.empty()) work_ready_.notify_all();
    const auto until =
        first->enqueued + std::chrono::microseconds(config_.batch_delay_us);
    while (waits && rows < config_.max_batch_size && !stopping_ && !draining_) {
      // Woken by arrivals, and when a member's deadline comes (it is
      // answered below, and the rest run then).
      auto wake = until;
      for (auto& p : group) wake = std::min(wake, p->deadline);
      if (Clock::now() >= wake) break;
      work_ready_.wait_until(*lock, wake);
      gather();
      if (!queue_.empty()) work_ready_.notify_all();
    }
    if (!waits) return std::move(group);  // each checked as it was taken
    forming_ = nullptr;
    forming_members_ = 0;
    // What is queued may have waited for this batch; and once stopping,
    // a worker that slept while its requests were queued must see the
    // queue empty, or Stop's join waits for it for good.
    if (stopping_ || !queue_.empty()) work_ready_.notify_all();
    // Members whose deadline passed, or whose caller went away, while the
    // batch formed are answered without running: moved behind the others
    // (in order), answered, then cut off, never out of `group` meanwhile.
    const auto now = Clock::now();
    size_t kept = 0;
    for (size_t i = 0; i < group.size(); ++i) {
      if (now < group[i]->deadline && !Abandoned(*group[i])) {
        if (i != kept) std::swap(group[kept], group[i]);
        ++kept;
      }
    }
    if (kept < group.size()) {
      lock->unlock();
      for (size_t i = kept; i < group.size(); ++i) {
        if (now >= group[i]->deadline) {
          Expire(group[i].get());
        } else {
          Drop(group[i].get());
        }
      }
      lock->lock();
      group.erase(group.begin() + static_cast<std::ptrdiff_t>(kept),
                  group.end());
    }
    if (!group.empty()) return std::move(group);
    instance->busy = false;
  }
}

void ModelVersion::WorkerLoop(Instance* instance) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    auto group = TakeWork(instance, &lock);
    if (group.empty()) return;
    lock.unlock();
    try {
      RunGroup(instance, group);
    } catch (...) {
      for (const auto& p : group) AnswerUnanswered(p.get());
    }
    lock.lock();
    instance->busy = false;
  }
}

void ModelVersion::AnswerUnanswered(Pending* pending) noexcept {
  // Answered already (its `done` is taken before it is called).
  if (!pending->done) return;
  InferResponse failed;
  failed.status.code = StatusCode::kResourceExhausted;
  try {
    failed.model = name_;
    failed.version = version_;
    failed.status.message = "model '" + name_ + "' version " + version_ +
                            ": the server ran out of memory answering this "
                            "request";
  } catch (...) {
    // The code alone, then.
  }
  // Counted as a failure, unless Complete counted it before it threw.
  try {
    const auto now = Clock::now();
    const Clock::duration took = now - pending->enqueued;
    if (metrics_ && !pending->recorded) {
      metrics_->RecordRequest(
          name_, version_, false, Seconds(QueuedFor(*pending, now)),
          pending->compute_s, Seconds(took), pending->caller_gone);
    }
    if (!pending->recorded) {
      std::lock_guard<std::mutex> lock(stats_mutex_);
      stats_.fail.Add(static_cast<uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(took).count()));
    }
  } catch (...) {
    // Uncounted, then; the answer matters more.
  }
  Done done = std::move(pending->done);
  try {
    done(std::move(failed));
  } catch (...) {
    // Its caller's own failure: nothing more to answer with.
  }
}

InferResponse ModelVersion::RunOne(paddle_lite::Predictor* predictor,
                                   const InferRequest& request,
                                   RunTimes* times,
                                   bool* past_limit) const {
  InferResponse response;
  response.model = name_;
  response.version = version_;
  auto lap = [last = Clock::now()]() mutable {
    const auto now = Clock::now();
    const auto ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(now - last)
            .count();
    last = now;
    return static_cast<uint64_t>(ns);
  };
  try {
    for (auto& in : request.inputs) {
      auto handle = predictor->GetInputHandle(in.name);
      handle->Reshape(in.shape);
      char* dst = nullptr;
      VisitType(in.type, [&](auto t) {
        using T = decltype(t);
        dst = reinterpret_cast<char*>(handle->mutable_data<T>());
      });
      Status copied =
          dst != nullptr || in.element_bytes() == 0
              ? in.CopyElements(dst)
              : Status::Error(StatusCode::kInternal,
                              "input '" + in.name + "' has type " +
                                  ProtocolTypeName(in.type) +
                                  ", which the server cannot pass on");
      if (!copied.ok()) {
        response.status = std::move(copied);
        return response;
      }
      // The handle keeps the previous request's LoD otherwise.
      handle->SetLoD(in.lod);
    }
    times->input_ns = lap();
    predictor->Run();
    times->infer_ns = lap();
    std::vector<std::string> names = request.outputs;
    if (names.empty()) {
      for (auto& o : outputs_) names.push_back(o.name);
    }
    for (auto& name : names) {
      auto handle = predictor->GetOutputHandle(name);
      TensorData out;
      out.name = name;
      out.type = handle->type();
      out.shape = handle->shape();
      out.lod = handle->lod();
      bool known = VisitType(out.type, [&](auto t) {
        using T = decltype(t);
        int64_t size = 0;
        const T* data = handle->template data<T>(&size);
        out.bytes.assign(reinterpret_cast<const char*>(data),
                         static_cast<size_t>(size) * sizeof(T));
      });
      if (!known) {
        response.status =
            Status::Error(StatusCode::kInternal,
                          "model '" + name_ + "': output '" + name +
                              "' has type " + ProtocolTypeName(out.type) +
                              ", which the server cannot return");
        return response;
      }
      response.outputs.push_back(std::move(out));
    }
    times->output_ns = lap();
  } catch (const paddle_lite::Exception& e) {
    // Bad values and too-large inputs are the request's fault.
    bool client = e.code() == paddle_lite::ErrorCode::kInvalidArgument ||
                  e.code() == paddle_lite::ErrorCode::kResourceExhausted;
    if (past_limit != nullptr) {
      *past_limit = e.code() == paddle_lite::ErrorCode::kResourceExhausted;
    }
    response.status = Status::Error(
        client ? StatusCode::kInvalidArgument : StatusCode::kInternal,
        "model '" + name_ + "' version " + version_ + ": " + e.what());
    response.outputs.clear();
  } catch (const std::exception& e) {
    response.status =
        Status::Error(StatusCode::kInternal, "model '" + name_ + "' version " +
                                                 version_ + ": " + e.what());
    response.outputs.clear();
  }
  return response;
}

void ModelVersion::RunGroup(Instance* instance,
                            std::vector<std::shared_ptr<Pending>>& group) {
  // Each request alone. After a batched run that failed, a member whose
  // deadline passed or whose caller went away meanwhile is answered
  // without running, as it would have been in the queue. Returns whether
  // every request ran, and succeeded.
  auto run_each = [&] {
    bool all_ran_ok = true;
    for (auto& p : group) {
      if (Clock::now() >= p->deadline) {
        Expire(p.get());
        all_ran_ok = false;
      } else if (Abandoned(*p)) {
        Drop(p.get());
        all_ran_ok = false;
      } else {
        InferResponse answer = RunTimed(instance, p.get());
        all_ran_ok = all_ran_ok && answer.status.ok();
        Complete(p.get(), std::move(answer));
      }
    }
    return all_ran_ok;
  };
  if (group.size() == 1) {
    run_each();
    return;
  }
  // Inputs still in shared memory are read before they are joined: one
  // that cannot be read fails its own request only.
  for (auto it = group.begin(); it != group.end();) {
    Status read;
    for (TensorData& in : (*it)->request.inputs) {
      if (!read.ok()) break;
      try {
        read = in.ReadSharedMemory();
      } catch (const std::bad_alloc&) {
        read = Status::Error(StatusCode::kResourceExhausted,
                             "input '" + in.name +
                                 "': out of memory to read it from shared "
                                 "memory");
      }
    }
    if (read.ok()) {
      ++it;
      continue;
    }
    Complete(it->get(), Refusal(std::move(read)));
    it = group.erase(it);
  }
  if (group.size() <= 1) {
    run_each();
    return;
  }
  // One request holding every request's rows, input by input. Without
  // the memory for that copy, each request runs alone.
  InferRequest merged;
  int64_t total = 0;
  for (auto& p : group) total += p->rows;
  try {
    for (auto& in : group.front()->request.inputs) {
      TensorData m;
      m.name = in.name;
      m.type = in.type;
      m.shape = in.shape;
      m.shape[0] = total;
      m.bytes.reserve(in.elements().size() / static_cast<size_t>(in.shape[0]) *
                      static_cast<size_t>(total));
      for (auto& p : group) {
        for (auto& other : p->request.inputs) {
          if (other.name == in.name) m.bytes.append(other.elements());
        }
      }
      merged.inputs.push_back(std::move(m));
    }
  } catch (const std::bad_alloc&) {
    merged = InferRequest();  // what was copied, freed first
    run_each();
    return;
  }
  const auto started = Clock::now();
  RunTimes times;
  bool past_limit = false;
  InferResponse r =
      RunOne(instance->predictor.get(), merged, &times, &past_limit);
  const double compute_s = Seconds(Clock::now() - started);
  bool splittable = r.status.ok();
  for (auto& out : r.outputs) {
    if (out.shape.empty() || out.shape[0] != total || !out.lod.empty()) {
      splittable = false;
    }
  }
  if (!splittable) {
    if (r.status.ok()) {
      // Outputs not row-aligned with the inputs (NMS boxes, LoD): this
      // model cannot be batched by concatenation.
      batchable_ = false;
    }
    // Each request alone, so one bad request fails only itself.
    const bool each_ran_ok = run_each();
    // The batch failed where its requests did not: a limit (max_run_mb,
    // say) that max_batch_size rows pass, or a model that runs only one
    // row (a reshape to a fixed batch). Every such batch costs its runs
    // twice: said once. A model that cannot run a batch (any failure but a
    // limit's, kFailedBatchesToStop batches in a row, none succeeding
    // between them) is not batched again. Past a limit, a batch says
    // nothing of smaller ones, and clients could turn batching off for
    // everyone by sending large requests together.
    if (!r.status.ok() && each_ran_ok) {
      if (!batch_failure_logged_.exchange(true)) {
        LOG(WARNING) << "model '" << name_ << "' version " << version_
                     << ": a batch of " << total << " rows failed where each "
                     << "of its " << group.size() << " requests ran alone ("
                     << r.status.message
                     << "); its requests run again one by one. "
                     << (past_limit ? "Lower max_batch_size or raise the limit"
                                    : "If the model cannot run batches, leave "
                                      "max_batch_size out");
      }
      if (!past_limit &&
          failed_batches_in_a_row_.fetch_add(1) + 1 == kFailedBatchesToStop) {
        batchable_ = false;
        LOG(WARNING) << "model '" << name_ << "' version " << version_ << ": "
                     << kFailedBatchesToStop
                     << " batches in a row failed where each of their "
                        "requests ran alone; its requests are not batched "
                        "again (until the model is loaded again)";
      }
    }
    return;
  }
  failed_batches_in_a_row_ = 0;
  if (metrics_) {
    metrics_->RecordBatch(name_, version_, static_cast<int>(group.size()));
  }
  RecordExecution(total, times);
  int64_t offset = 0;
  for (auto& p : group) {
    InferResponse part;
    part.model = name_;
    part.version = version_;
    try {
      std::vector<std::string> names = p->request.outputs;
      if (names.empty()) {
        for (auto& o : outputs_) names.push_back(o.name);
      }
      for (auto& name : names) {
        for (auto& out : r.outputs) {
          if (out.name != name) continue;
          const size_t row_bytes =
              out.bytes.size() / static_cast<size_t>(total);
          TensorData piece;
          piece.name = out.name;
          piece.type = out.type;
          piece.shape = out.shape;
          piece.shape[0] = p->rows;
          piece.bytes =
              out.bytes.substr(static_cast<size_t>(offset) * row_bytes,
                               static_cast<size_t>(p->rows) * row_bytes);
          part.outputs.push_back(std::move(piece));
        }
      }
    } catch (const std::bad_alloc&) {
      part = Refusal(
          Status::Error(StatusCode::kResourceExhausted,
                        "model '" + name_ + "' version " + version_ +
                            ": out of memory to split the batch's outputs"));
    }
    offset += p->rows;
    p->started = started;
    p->compute_s = compute_s;
    p->times = times;
    Complete(p.get(), std::move(part));
  }
}

}  // namespace serve
}  // namespace pdlite
