#include "serve/grpc_frontend.h"

#include <glog/logging.h>
#include <google/protobuf/stubs/logging.h>
#include <grpc/grpc.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <sstream>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "serve/callback_order.h"
#include "serve/grpc_health.h"
#include "serve/grpc_predict_v2.grpc.pb.h"
#include "tools/pdlite/lod_text.h"

namespace pdlite {
namespace serve {

namespace {

using paddle_lite::DataType;

// How long an answer may wait unwritten, its client reading none of it,
// before its call is cancelled: while the server stops (a closing stream
// with every request answered), or while every --grpc-threads place is
// held and a call is refused for want of one.
constexpr std::chrono::seconds kUnreadAnswerGrace(5);

Status Bad(std::string message) {
  return Status::Error(StatusCode::kInvalidArgument, std::move(message));
}

template <typename T>
void AppendBytes(const T& value, std::string* bytes) {
  bytes->append(reinterpret_cast<const char*>(&value), sizeof(T));
}

// Narrows each wire value into T, refusing one T cannot hold (an INT8
// input sent as 300 would otherwise wrap silently). Floats come in their
// own width, infinities and NaN included.
template <typename T, typename Wire>
Status NarrowInto(const google::protobuf::RepeatedField<Wire>& values,
                  const std::string& what,
                  std::string* bytes) {
  static_assert(std::is_integral_v<T> || std::is_same_v<T, Wire>,
                "floats are not narrowed");
  bytes->reserve(values.size() * sizeof(T));
  for (const Wire v : values) {
    if (std::is_integral_v<T> &&
        (v < static_cast<Wire>(std::numeric_limits<T>::lowest()) ||
         v > static_cast<Wire>(std::numeric_limits<T>::max()))) {
      std::ostringstream message;
      message << what << "the value " << v << " does not fit the datatype";
      return Bad(message.str());
    }
    AppendBytes(static_cast<T>(v), bytes);
  }
  return Status{};
}

// The typed contents of `datatype` as raw bytes.
Status ContentsToBytes(const inference::InferTensorContents& contents,
                       DataType type,
                       const std::string& what,
                       std::string* bytes) {
  switch (type) {
    case DataType::FLOAT32:
      return NarrowInto<float>(contents.fp32_contents(), what, bytes);
    case DataType::FLOAT64:
      return NarrowInto<double>(contents.fp64_contents(), what, bytes);
    case DataType::INT64:
      return NarrowInto<int64_t>(contents.int64_contents(), what, bytes);
    case DataType::INT32:
      return NarrowInto<int32_t>(contents.int_contents(), what, bytes);
    case DataType::INT16:
      return NarrowInto<int16_t>(contents.int_contents(), what, bytes);
    case DataType::INT8:
      return NarrowInto<int8_t>(contents.int_contents(), what, bytes);
    case DataType::UINT8:
      return NarrowInto<uint8_t>(contents.uint_contents(), what, bytes);
    case DataType::BOOL:
      for (const bool v : contents.bool_contents()) {
        bytes->push_back(v ? 1 : 0);
      }
      return Status{};
    default:
      // FP16 and BF16: the protocol has no typed contents for them.
      return Bad(what + ProtocolTypeName(type) +
                 " has no typed contents; send it in raw_input_contents");
  }
}

// libprotobuf's log, into glog. libprotobuf logs a line for every message
// it parses that holds a string that is not UTF-8, before the call is
// refused: a client could fill the server's log with them. One in 1000 of
// those is kept.
void ProtobufLog(google::protobuf::LogLevel level,
                 const char* file,
                 int line,
                 const std::string& message) {
  if (message.find("invalid UTF-8") != std::string::npos) {
    LOG_EVERY_N(WARNING, 1000)
        << "libprotobuf: " << message << " (one in 1000 of these is logged)";
    return;
  }
  const std::string text = std::string("libprotobuf ") + file + ":" +
                           std::to_string(line) + ": " + message;
  switch (level) {
    case google::protobuf::LOGLEVEL_INFO:
      LOG(INFO) << text;
      break;
    case google::protobuf::LOGLEVEL_WARNING:
      LOG(WARNING) << text;
      break;
    default:  // ERROR; FATAL aborts in libprotobuf after this
      LOG(ERROR) << text;
      break;
  }
}

// The shared-memory extension's parameters of an input or a requested
// output, as tritonclient sends them: "shared_memory_region" (a string)
// and "shared_memory_byte_size" together, and "shared_memory_offset" (0
// when not given) only with them; the sizes int64 (or uint64) >= 0.
Status DecodeSharedMemory(
    const google::protobuf::Map<std::string, inference::InferParameter>&
        parameters,
    const std::string& what,
    SharedMemoryRef* ref) {
  auto region = parameters.find("shared_memory_region");
  auto size = parameters.find("shared_memory_byte_size");
  auto offset = parameters.find("shared_memory_offset");
  const auto none = parameters.end();
  if (region == none && size == none && offset == none) return Status{};
  if (region == none || size == none) {
    return Bad(what +
               "parameters \"shared_memory_region\" and "
               "\"shared_memory_byte_size\" go together (and "
               "\"shared_memory_offset\" only with them)");
  }
  if (region->second.parameter_choice_case() !=
          inference::InferParameter::kStringParam ||
      region->second.string_param().empty()) {
    return Bad(what +
               "parameter \"shared_memory_region\" must be a "
               "region's name, a string");
  }
  ref->region = region->second.string_param();
  auto count = [&](const inference::InferParameter& p, const char* name,
                   uint64_t* out) {
    if (p.parameter_choice_case() == inference::InferParameter::kInt64Param &&
        p.int64_param() >= 0) {
      *out = static_cast<uint64_t>(p.int64_param());
      return Status{};
    }
    if (p.parameter_choice_case() == inference::InferParameter::kUint64Param) {
      *out = p.uint64_param();
      return Status{};
    }
    return Bad(what + "parameter \"" + name +
               "\" must be an int64 (or uint64) >= 0");
  };
  Status status =
      count(size->second, "shared_memory_byte_size", &ref->byte_size);
  if (status.ok() && offset != none) {
    status = count(offset->second, "shared_memory_offset", &ref->offset);
  }
  return status;
}

}  // namespace

Status DecodeGrpcInferRequest(const inference::ModelInferRequest& wire,
                              InferRequest* request) {
  request->model = wire.model_name();
  request->version = wire.model_version();
  request->id = wire.id();
  const std::string model = "model '" + wire.model_name() + "': ";
  for (const auto& [key, value] : wire.parameters()) {
    if (key == "timeout") {
      if (value.parameter_choice_case() !=
              inference::InferParameter::kInt64Param ||
          value.int64_param() < 0) {
        return Bad(model +
                   "parameter \"timeout\" must be microseconds, an int64 "
                   ">= 0");
      }
      request->timeout_us = value.int64_param();
    }
  }
  // raw_input_contents has an entry for each input not in shared memory,
  // in order (tritonclient sends none for those in shared memory).
  std::vector<SharedMemoryRef> shared(wire.inputs_size());
  int not_shared = 0;
  for (int i = 0; i < wire.inputs_size(); ++i) {
    const auto& in = wire.inputs(i);
    Status status = DecodeSharedMemory(
        in.parameters(), model + "input '" + in.name() + "': ", &shared[i]);
    if (!status.ok()) return status;
    if (!shared[i].used()) ++not_shared;
  }
  const bool raw = wire.raw_input_contents_size() > 0;
  if (raw && wire.raw_input_contents_size() != not_shared) {
    return Bad(model + "raw_input_contents has " +
               std::to_string(wire.raw_input_contents_size()) +
               " entries for " + std::to_string(not_shared) +
               " inputs not in shared memory; it needs one for each, in "
               "order");
  }
  int next_raw = 0;
  for (int i = 0; i < wire.inputs_size(); ++i) {
    const auto& in = wire.inputs(i);
    const std::string what = model + "input '" + in.name() + "': ";
    TensorData tensor;
    tensor.name = in.name();
    tensor.shared_memory = shared[i];
    if (!ParseProtocolType(in.datatype(), &tensor.type)) {
      return Bad(what + "datatype '" + in.datatype() +
                 "' is not one this server runs (" + ProtocolTypeNames() + ")");
    }
    for (const int64_t d : in.shape()) {
      if (d < 0) {
        return Bad(what + "shape dims must be >= 0, got " + std::to_string(d));
      }
      tensor.shape.push_back(d);
    }
    for (const auto& [key, value] : in.parameters()) {
      // Our LoD extension, as text: gRPC parameters hold no lists.
      if (key != "lod") continue;
      if (value.parameter_choice_case() !=
              inference::InferParameter::kStringParam ||
          !ParseLoDText(value.string_param(), &tensor.lod)) {
        return Bad(what +
                   "parameter \"lod\" must be a string of offsets, levels "
                   "separated by ';' (e.g. \"0,3,5\")");
      }
    }
    if (tensor.shared_memory.used()) {
      if (in.has_contents() && in.contents().ByteSizeLong() > 0) {
        return Bad(what +
                   "has shared_memory_region and also contents; send the "
                   "elements one way");
      }
    } else if (raw) {
      if (in.has_contents() && in.contents().ByteSizeLong() > 0) {
        return Bad(what + "has both contents and raw_input_contents; send one");
      }
      tensor.borrowed = wire.raw_input_contents(next_raw++);
    } else {
      Status status =
          ContentsToBytes(in.contents(), tensor.type, what, &tensor.bytes);
      if (!status.ok()) return status;
    }
    request->inputs.push_back(std::move(tensor));
  }
  for (const auto& out : wire.outputs()) {
    request->outputs.push_back(out.name());
    SharedMemoryRef ref;
    Status status = DecodeSharedMemory(
        out.parameters(), model + "output '" + out.name() + "': ", &ref);
    if (!status.ok()) return status;
    if (ref.used()) request->output_shared_memory[out.name()] = ref;
    auto classes = out.parameters().find("classification");
    if (classes != out.parameters().end()) {
      if (classes->second.parameter_choice_case() !=
              inference::InferParameter::kInt64Param ||
          classes->second.int64_param() < 1) {
        return Bad(model + "output '" + out.name() +
                   "': parameter \"classification\" must be an int64 >= 1 "
                   "(how many classes to return)");
      }
      request->classification[out.name()] = classes->second.int64_param();
    }
  }
  return Status{};
}

void EncodeGrpcInferResponse(const InferResponse& response,
                             const std::string& id,
                             inference::ModelInferResponse* wire) {
  wire->set_model_name(response.model);
  wire->set_model_version(response.version);
  wire->set_id(id);
  for (const TensorData& out : response.outputs) {
    auto* tensor = wire->add_outputs();
    tensor->set_name(out.name);
    tensor->set_datatype(DatatypeName(out));
    for (const int64_t d : out.shape) tensor->add_shape(d);
    if (!out.lod.empty()) {
      (*tensor->mutable_parameters())["lod"].set_string_param(
          FormatLoDText(out.lod));
    }
    if (out.shared_memory.used()) {
      auto& parameters = *tensor->mutable_parameters();
      parameters["shared_memory_region"].set_string_param(
          out.shared_memory.region);
      parameters["shared_memory_byte_size"].set_int64_param(
          static_cast<int64_t>(out.shared_memory.byte_size));
      if (out.shared_memory.offset != 0) {
        parameters["shared_memory_offset"].set_int64_param(
            static_cast<int64_t>(out.shared_memory.offset));
      }
    }
    // One entry per output, so that positions match (tritonclient reads
    // them so); an output in shared memory has an empty one.
    wire->add_raw_output_contents(out.bytes);
  }
}

// A message of at most kMaxMessageBytes as gRPC sends a status message
// (percent-encoded: a byte outside printable ASCII, or '%', takes 3), cut
// at a UTF-8 character's start (protobuf strings must be UTF-8). Messages
// echo what clients sent (a model name of megabytes, say): a status
// message goes in a trailer that clients take only up to 8 KB by default,
// and a stream's error answer must fit in a message.
constexpr size_t kMaxMessageBytes = 4096;
std::string Capped(const std::string& text, size_t limit = kMaxMessageBytes) {
  size_t sent = 0, cut = 0;
  for (; cut < text.size(); ++cut) {
    const auto byte = static_cast<unsigned char>(text[cut]);
    sent += byte >= 0x20 && byte <= 0x7E && byte != '%' ? 1 : 3;
    if (sent > limit) break;
  }
  if (cut == text.size()) return text;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return text.substr(0, cut) + "... (" + std::to_string(text.size() - cut) +
         " bytes more)";
}

grpc::Status GrpcStatus(const Status& status) {
  grpc::StatusCode code = grpc::StatusCode::UNKNOWN;
  switch (status.code) {
    case StatusCode::kOk:
      return grpc::Status::OK;
    case StatusCode::kInvalidArgument:
      code = grpc::StatusCode::INVALID_ARGUMENT;
      break;
    case StatusCode::kNotFound:
      code = grpc::StatusCode::NOT_FOUND;
      break;
    case StatusCode::kResourceExhausted:
      code = grpc::StatusCode::RESOURCE_EXHAUSTED;
      break;
    case StatusCode::kUnavailable:
      code = grpc::StatusCode::UNAVAILABLE;
      break;
    case StatusCode::kDeadlineExceeded:
      code = grpc::StatusCode::DEADLINE_EXCEEDED;
      break;
    case StatusCode::kInternal:
      code = grpc::StatusCode::INTERNAL;
      break;
    case StatusCode::kAlreadyExists:
      code = grpc::StatusCode::ALREADY_EXISTS;
      break;
    case StatusCode::kCancelled:
      code = grpc::StatusCode::CANCELLED;
      break;
  }
  return grpc::Status(code, Capped(status.message));
}

// What a call whose bytes are not its request message is told. gRPC's
// own parsing answers such a message UNIMPLEMENTED (callback API) or
// INTERNAL (sync API), as if the server lacked the method or had failed.
template <typename Request>
Status NotTheMessage() {
  return Bad("the message is not a " + Request::descriptor()->name() +
             ": not protobuf, or a string field that is not UTF-8");
}

// Every call is on gRPC's callback API and parses its message's bytes
// itself (raw methods), so that a malformed message is INVALID_ARGUMENT.
// A callback runs where the call was read, without the hand-off to a
// thread of a pool that the sync API makes: for ModelInfer, a request an
// idle instance takes runs right there, which saves 0.06-0.1 ms a call at
// one client (docs/serving_benchmarks.md, "gRPC on the callback API, and
// where the rest goes"). A queued request holds
// no thread: the worker that runs it finishes the call. The health and
// metadata calls never block, so they answer in the callback.
using Grpc = inference::GRPCInferenceService;
using SharedMemoryCallbacks =
    Grpc::WithRawCallbackMethod_SystemSharedMemoryStatus<
        Grpc::WithRawCallbackMethod_SystemSharedMemoryRegister<
            Grpc::WithRawCallbackMethod_SystemSharedMemoryUnregister<
                Grpc::WithRawCallbackMethod_LogSettings<
                    Grpc::WithRawCallbackMethod_ModelStreamInfer<
                        Grpc::Service>>>>>;
using RawCallbackService = Grpc::WithRawCallbackMethod_ServerLive<
    Grpc::WithRawCallbackMethod_ServerReady<Grpc::WithRawCallbackMethod_ModelReady<
        Grpc::WithRawCallbackMethod_ServerMetadata<
            Grpc::WithRawCallbackMethod_ModelMetadata<
                Grpc::WithRawCallbackMethod_ModelInfer<
                    Grpc::WithRawCallbackMethod_ModelConfig<
                        Grpc::WithRawCallbackMethod_ModelStatistics<
                            Grpc::WithRawCallbackMethod_RepositoryIndex<
                                Grpc::WithRawCallbackMethod_RepositoryModelLoad<
                                    Grpc::
                                        WithRawCallbackMethod_RepositoryModelUnload<
                                            SharedMemoryCallbacks>>>>>>>>>>>;

// Refuses a repository name other than the server's one, "".
Status CheckRepositoryName(const std::string& name) {
  if (name.empty()) return Status();
  return Status::Error(
      StatusCode::kNotFound,
      "unknown repository '" + name + "'; the server has one, named \"\"");
}

// A load's or unload's repository name and parameters, checked; a load's
// config.json text goes to `config_json`.
template <typename Request>
Status CheckRepositoryCall(const Request& request,
                           bool load,
                           std::string* config_json,
                           ModelFiles* files) {
  Status status = CheckRepositoryName(request.repository_name());
  if (!status.ok()) return status;
  std::vector<RepositoryParameter> parameters;
  for (const auto& [key, value] : request.parameters()) {
    RepositoryParameter p;
    p.key = key;
    if (value.parameter_choice_case() ==
        inference::ModelRepositoryParameter::kBoolParam) {
      p.kind = RepositoryParameter::Kind::kBool;
    } else if (value.parameter_choice_case() ==
               inference::ModelRepositoryParameter::kStringParam) {
      p.kind = RepositoryParameter::Kind::kString;
      p.text = value.string_param();
    } else if (value.parameter_choice_case() ==
               inference::ModelRepositoryParameter::kBytesParam) {
      p.kind = RepositoryParameter::Kind::kBytes;
      p.text = value.bytes_param();
    }
    parameters.push_back(std::move(p));
  }
  return CheckRepositoryParameters(request.model_name(), load,
                                   std::move(parameters), config_json, files);
}

namespace {

// Runs each task on a thread of its own, at most kMaxTasks at once: a load
// takes seconds, and an unload or reload waits for the requests still
// holding its model (up to retire_wait), which must hold up neither the
// loads and unloads of other models (as over HTTP, where each runs on its
// connection's thread) nor gRPC's callback threads. Joined once done.
class ControlThreads {
 public:
  // Each holds its call's message (a load may carry the model's files).
  static constexpr int kMaxTasks = 16;

  ~ControlThreads() {
    std::vector<std::unique_ptr<Worker>> workers;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      workers.swap(workers_);
    }
    for (auto& worker : workers) worker->thread.join();
  }
  // False, with nothing run, when kMaxTasks run already (or no thread
  // can be started).
  bool TryPost(std::function<void()> task) {
    std::lock_guard<std::mutex> lock(mutex_);
    // Finished ones joined: a thread is kept only while it runs.
    for (auto it = workers_.begin(); it != workers_.end();) {
      if ((*it)->done) {
        (*it)->thread.join();
        it = workers_.erase(it);
      } else {
        ++it;
      }
    }
    if (running_ >= kMaxTasks) return false;
    try {
      workers_.reserve(workers_.size() + 1);  // the push below cannot throw
      auto worker = std::make_unique<Worker>();
      Worker* w = worker.get();
      // It marks itself done under mutex_, held here until it is listed.
      w->thread = std::thread([this, w, task = std::move(task)]() mutable {
        task();
        task = nullptr;  // its captures released before it counts done
        std::lock_guard<std::mutex> lock(mutex_);
        w->done = true;
        --running_;
      });
      workers_.push_back(std::move(worker));
    } catch (const std::exception&) {
      return false;  // no memory or no thread: nothing started
    }
    ++running_;
    return true;
  }
  // Nothing running.
  bool Idle() {
    std::lock_guard<std::mutex> lock(mutex_);
    return running_ == 0;
  }

 private:
  struct Worker {
    std::thread thread;
    bool done = false;  // under mutex_
  };
  std::mutex mutex_;
  std::vector<std::unique_ptr<Worker>> workers_;
  int running_ = 0;
};

}  // namespace

class GrpcFrontend::Service final : public RawCallbackService {
 public:
  Service(InferenceServer* server,
          int max_infer_calls,
          size_t max_message_bytes,
          ApiRestrictions restricted)
      : server_(server),
        max_infer_calls_(max_infer_calls),
        max_message_bytes_(max_message_bytes),
        restricted_(std::move(restricted)) {}

  grpc::ServerUnaryReactor* ServerLive(
      grpc::CallbackServerContext* context,
      const grpc::ByteBuffer* request_bytes,
      grpc::ByteBuffer* response_bytes) override {
    return Unary<inference::ServerLiveRequest, inference::ServerLiveResponse>(
        ApiCategory::kHealth, context, request_bytes, response_bytes,
        [this](const auto&, auto* response) {
          response->set_live(server_->Live());
          return Status();
        });
  }

  grpc::ServerUnaryReactor* ServerReady(
      grpc::CallbackServerContext* context,
      const grpc::ByteBuffer* request_bytes,
      grpc::ByteBuffer* response_bytes) override {
    return Unary<inference::ServerReadyRequest, inference::ServerReadyResponse>(
        ApiCategory::kHealth, context, request_bytes, response_bytes,
        [this](const auto&, auto* response) {
          response->set_ready(server_->Ready());
          return Status();
        });
  }

  grpc::ServerUnaryReactor* ModelReady(
      grpc::CallbackServerContext* context,
      const grpc::ByteBuffer* request_bytes,
      grpc::ByteBuffer* response_bytes) override {
    return Unary<inference::ModelReadyRequest, inference::ModelReadyResponse>(
        ApiCategory::kHealth, context, request_bytes, response_bytes,
        [this](const inference::ModelReadyRequest& request,
               inference::ModelReadyResponse* response) {
          std::shared_ptr<const ModelVersion> model;
          Status status =
              server_->Find(request.name(), request.version(), &model);
          if (status.ok()) response->set_ready(model->ready());
          return status;
        });
  }

  grpc::ServerUnaryReactor* ServerMetadata(
      grpc::CallbackServerContext* context,
      const grpc::ByteBuffer* request_bytes,
      grpc::ByteBuffer* response_bytes) override {
    return Unary<inference::ServerMetadataRequest,
                 inference::ServerMetadataResponse>(
        ApiCategory::kMetadata, context, request_bytes, response_bytes,
        [this](const auto&, inference::ServerMetadataResponse* response) {
          response->set_name(kServerName);
          response->set_version(kServerVersion);
          for (const std::string& e : server_->Extensions()) {
            response->add_extensions(e);
          }
          return Status();
        });
  }

  grpc::ServerUnaryReactor* ModelMetadata(
      grpc::CallbackServerContext* context,
      const grpc::ByteBuffer* request_bytes,
      grpc::ByteBuffer* response_bytes) override {
    return Unary<inference::ModelMetadataRequest,
                 inference::ModelMetadataResponse>(
        ApiCategory::kMetadata, context, request_bytes, response_bytes,
        [this](const inference::ModelMetadataRequest& request,
               inference::ModelMetadataResponse* response) {
          return DescribeModel(request, response);
        });
  }

  grpc::ServerUnaryReactor* ModelConfig(
      grpc::CallbackServerContext* context,
      const grpc::ByteBuffer* request_bytes,
      grpc::ByteBuffer* response_bytes) override {
    return Unary<inference::ModelConfigRequest, inference::ModelConfigResponse>(
        ApiCategory::kModelConfig, context, request_bytes, response_bytes,
        [this](const inference::ModelConfigRequest& request,
               inference::ModelConfigResponse* response) {
          return DescribeConfig(request, response->mutable_config());
        });
  }

  grpc::ServerUnaryReactor* ModelStatistics(
      grpc::CallbackServerContext* context,
      const grpc::ByteBuffer* request_bytes,
      grpc::ByteBuffer* response_bytes) override {
    return Unary<inference::ModelStatisticsRequest,
                 inference::ModelStatisticsResponse>(
        ApiCategory::kStatistics, context, request_bytes, response_bytes,
        [this](const inference::ModelStatisticsRequest& request,
               inference::ModelStatisticsResponse* response) {
          std::vector<VersionStatistics> all;
          Status status =
              server_->Statistics(request.name(), request.version(), &all);
          auto set = [](const DurationStat& d,
                        inference::StatisticDuration* out) {
            out->set_count(d.count);
            out->set_ns(d.ns);
          };
          for (const VersionStatistics& s : all) {
            auto* m = response->add_model_stats();
            m->set_name(s.name);
            m->set_version(s.version);
            m->set_last_inference(s.last_inference_ms);
            m->set_inference_count(s.inference_count);
            m->set_execution_count(s.execution_count);
            auto* stats = m->mutable_inference_stats();
            set(s.success, stats->mutable_success());
            set(s.fail, stats->mutable_fail());
            set(s.queue, stats->mutable_queue());
            set(s.compute_input, stats->mutable_compute_input());
            set(s.compute_infer, stats->mutable_compute_infer());
            set(s.compute_output, stats->mutable_compute_output());
            stats->mutable_cache_hit();  // no response cache: zero
            stats->mutable_cache_miss();
            for (const BatchStat& b : s.batches) {
              auto* batch = m->add_batch_stats();
              batch->set_batch_size(static_cast<uint64_t>(b.batch_size));
              set(b.compute_input, batch->mutable_compute_input());
              set(b.compute_infer, batch->mutable_compute_infer());
              set(b.compute_output, batch->mutable_compute_output());
            }
          }
          return status;
        });
  }

  grpc::ServerUnaryReactor* LogSettings(
      grpc::CallbackServerContext* context,
      const grpc::ByteBuffer* request_bytes,
      grpc::ByteBuffer* response_bytes) override {
    return Unary<inference::LogSettingsRequest, inference::LogSettingsResponse>(
        ApiCategory::kLogging, context, request_bytes, response_bytes,
        [this](const inference::LogSettingsRequest& request,
               inference::LogSettingsResponse* response) {
          using Value = inference::LogSettingValue;
          std::vector<LogSetting> changes;
          for (const auto& [key, value] : request.settings()) {
            LogSetting s;
            s.key = key;
            if (value.parameter_choice_case() == Value::kBoolParam) {
              s.kind = LogSetting::Kind::kBool;
              s.flag = value.bool_param();
            } else if (value.parameter_choice_case() == Value::kUint32Param) {
              s.kind = LogSetting::Kind::kUint;
              s.number = value.uint32_param();
            } else if (value.parameter_choice_case() == Value::kStringParam) {
              s.kind = LogSetting::Kind::kString;
              s.text = value.string_param();
            }
            changes.push_back(std::move(s));
          }
          Status status = server_->log_settings().Update(changes);
          if (!status.ok()) return status;
          for (const LogSetting& s : server_->log_settings().Current()) {
            auto& out = (*response->mutable_settings())[s.key];
            if (s.kind == LogSetting::Kind::kBool) {
              out.set_bool_param(s.flag);
            } else if (s.kind == LogSetting::Kind::kUint) {
              out.set_uint32_param(static_cast<uint32_t>(s.number));
            } else {
              out.set_string_param(s.text);
            }
          }
          return Status();
        });
  }

  grpc::ServerUnaryReactor* SystemSharedMemoryStatus(
      grpc::CallbackServerContext* context,
      const grpc::ByteBuffer* request_bytes,
      grpc::ByteBuffer* response_bytes) override {
    return Unary<inference::SystemSharedMemoryStatusRequest,
                 inference::SystemSharedMemoryStatusResponse>(
        ApiCategory::kSharedMemory, context, request_bytes, response_bytes,
        [this](const inference::SystemSharedMemoryStatusRequest& request,
               inference::SystemSharedMemoryStatusResponse* response) {
          std::vector<SharedMemoryRegionInfo> regions;
          Status status =
              server_->shared_memory().Describe(request.name(), &regions);
          for (const SharedMemoryRegionInfo& r : regions) {
            auto& entry = (*response->mutable_regions())[r.name];
            entry.set_name(r.name);
            entry.set_key(r.key);
            entry.set_offset(r.offset);
            entry.set_byte_size(r.byte_size);
          }
          return status;
        });
  }

  grpc::ServerUnaryReactor* SystemSharedMemoryRegister(
      grpc::CallbackServerContext* context,
      const grpc::ByteBuffer* request_bytes,
      grpc::ByteBuffer* response_bytes) override {
    return Unary<inference::SystemSharedMemoryRegisterRequest,
                 inference::SystemSharedMemoryRegisterResponse>(
        ApiCategory::kSharedMemory, context, request_bytes, response_bytes,
        [this](const inference::SystemSharedMemoryRegisterRequest& request,
               inference::SystemSharedMemoryRegisterResponse*) {
          return server_->shared_memory().Register(
              request.name(), request.key(), request.offset(),
              request.byte_size());
        });
  }

  grpc::ServerUnaryReactor* SystemSharedMemoryUnregister(
      grpc::CallbackServerContext* context,
      const grpc::ByteBuffer* request_bytes,
      grpc::ByteBuffer* response_bytes) override {
    return Unary<inference::SystemSharedMemoryUnregisterRequest,
                 inference::SystemSharedMemoryUnregisterResponse>(
        ApiCategory::kSharedMemory, context, request_bytes, response_bytes,
        [this](const inference::SystemSharedMemoryUnregisterRequest& request,
               inference::SystemSharedMemoryUnregisterResponse*) {
          return server_->shared_memory().Unregister(request.name());
        });
  }

  grpc::ServerUnaryReactor* RepositoryIndex(
      grpc::CallbackServerContext* context,
      const grpc::ByteBuffer* request_bytes,
      grpc::ByteBuffer* response_bytes) override {
    return Unary<inference::RepositoryIndexRequest,
                 inference::RepositoryIndexResponse>(
        ApiCategory::kModelRepository, context, request_bytes, response_bytes,
        [this](const inference::RepositoryIndexRequest& request,
               inference::RepositoryIndexResponse* response) {
          Status named = CheckRepositoryName(request.repository_name());
          if (!named.ok()) return named;
          for (const RepositoryEntry& e : server_->Index(request.ready())) {
            auto* entry = response->add_models();
            entry->set_name(e.name);
            entry->set_version(e.version);
            entry->set_state(e.state);
            entry->set_reason(e.reason);
          }
          return Status();
        });
  }

  grpc::ServerUnaryReactor* RepositoryModelLoad(
      grpc::CallbackServerContext* context,
      const grpc::ByteBuffer* request_bytes,
      grpc::ByteBuffer* response_bytes) override {
    return UnaryOnControlThread<inference::RepositoryModelLoadRequest,
                                inference::RepositoryModelLoadResponse>(
        ApiCategory::kModelRepository, context, request_bytes, response_bytes,
        [this](const inference::RepositoryModelLoadRequest& request,
               inference::RepositoryModelLoadResponse*) {
          // Before the parameters: their files are copied as they are
          // checked (HTTP refuses before it parses the body).
          Status status = server_->ModelControlAllowed(request.model_name());
          if (!status.ok()) return status;
          std::string config;
          ModelFiles files;
          status = CheckRepositoryCall(request, true, &config, &files);
          if (!status.ok()) return status;
          return server_->Load(request.model_name(), config, files);
        });
  }

  grpc::ServerUnaryReactor* RepositoryModelUnload(
      grpc::CallbackServerContext* context,
      const grpc::ByteBuffer* request_bytes,
      grpc::ByteBuffer* response_bytes) override {
    return UnaryOnControlThread<inference::RepositoryModelUnloadRequest,
                                inference::RepositoryModelUnloadResponse>(
        ApiCategory::kModelRepository, context, request_bytes, response_bytes,
        [this](const inference::RepositoryModelUnloadRequest& request,
               inference::RepositoryModelUnloadResponse*) {
          Status status = server_->ModelControlAllowed(request.model_name());
          if (!status.ok()) return status;
          std::string unused;
          ModelFiles no_files;
          status = CheckRepositoryCall(request, false, &unused, &no_files);
          if (!status.ok()) return status;
          return server_->Unload(request.model_name());
        });
  }

  grpc::ServerUnaryReactor* ModelInfer(
      grpc::CallbackServerContext* context,
      const grpc::ByteBuffer* request_bytes,
      grpc::ByteBuffer* response_bytes) override {
    const auto start = std::chrono::steady_clock::now();
    auto* reactor = new InferReactor(this, context);
    if (Refused(ApiCategory::kInference, context, reactor)) return reactor;
    // The call's messages, until it is answered: the decoded request
    // borrows the raw input contents from `wire`.
    auto call = std::make_shared<InferCall>();
    // Deserialize consumes the buffer, so the message's bytes are freed
    // once parsed rather than kept beside it until the call ends. gRPC
    // made the buffer for this call alone and reads it no more.
    grpc::Status parsed =
        grpc::SerializationTraits<inference::ModelInferRequest>::Deserialize(
            const_cast<grpc::ByteBuffer*>(request_bytes), &call->wire);
    // Answers a call refused before it reaches a model.
    auto refuse = [&](const Status& status) {
      reactor->Finish(Answer(call->wire, status, start));
      return reactor;
    };
    if (!parsed.ok()) {
      return refuse(NotTheMessage<inference::ModelInferRequest>());
    }
    // An unknown model or version is NOT_FOUND whatever the inputs are;
    // the request runs on the version found.
    std::shared_ptr<ModelVersion> found;
    Status status = server_->FindToRun(call->wire.model_name(),
                                       call->wire.model_version(), &found);
    if (!status.ok()) return refuse(status);
    InferRequest request;
    status = DecodeGrpcInferRequest(call->wire, &request);
    if (!status.ok()) return refuse(status);
    // Before the call is counted: nothing that may throw comes between
    // counting it and handing it over.
    FollowCaller(context, &request);
    if (!TakeInferCall(&status)) return refuse(status);
    reactor->HoldCall();
    // Answers the call once, from whichever comes first: the model's
    // answer, or an exception that InferAsync throws (memory running out)
    // before it hands the request on.
    auto finish = [this, reactor, response_bytes, start,
                   call](const InferResponse& result) {
      if (call->answered.exchange(true)) return;
      infer_calls_.fetch_sub(1);
      grpc::Status answer;
      try {
        Status status = result.status;
        if (status.ok()) {
          try {
            EncodeGrpcInferResponse(result, call->wire.id(), &call->response);
            // Sized before it is serialized: protobuf fails a message past
            // 2 GB, which would be INTERNAL rather than what FitsMessage
            // says.
            status = FitsMessage(call->wire, call->response.ByteSizeLong());
            bool own_buffer = false;
            grpc::Status serialized =
                status.ok()
                    ? grpc::SerializationTraits<inference::ModelInferResponse>::
                          Serialize(call->response, response_bytes, &own_buffer)
                    : grpc::Status::OK;
            if (!serialized.ok()) {
              status = Status::Error(StatusCode::kInternal,
                                     "the response could not be serialized: " +
                                         serialized.error_message());
            }
          } catch (const std::bad_alloc&) {
            status = OutOfMemoryForAnswer(call->wire);
          }
        }
        answer = Answer(call->wire, status, start);
      } catch (const std::exception&) {
        // Memory running out: still finished (an empty message allocates
        // nothing).
        answer = grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "");
      }
      if (!answer.ok()) {
        call->response.Clear();
        response_bytes->Clear();
      }
      // The last use of the call: gRPC may free it once finished.
      reactor->FinishHeld(answer);
    };
    HandOver(std::move(found), std::move(request), finish);
    return reactor;
  }

  // Whether an answer of `bytes` may be sent: gRPC would fail a larger one
  // as RESOURCE_EXHAUSTED with no word of the model, and end a stream.
  Status FitsMessage(const inference::ModelInferRequest& wire,
                     size_t bytes) const {
    if (bytes <= max_message_bytes_) return Status{};
    return Status::Error(
        StatusCode::kResourceExhausted,
        "model '" + wire.model_name() + "': the answer is " +
            std::to_string(bytes) + " bytes, more than a message may hold (" +
            std::to_string(max_message_bytes_) +
            " bytes, --max-body-mb); ask for fewer outputs or rows");
  }

  static Status OutOfMemoryForAnswer(const inference::ModelInferRequest& wire) {
    return Status::Error(StatusCode::kResourceExhausted,
                         "model '" + wire.model_name() +
                             "': out of memory to encode the answer");
  }

  // Triton's streaming inference: each request read from the stream is
  // answered on it as it completes (StreamCall below).
  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* ModelStreamInfer(
      grpc::CallbackServerContext* context) override {
    return new StreamCall(this, context);
  }

  // The health checking service's calls are of the health category.
  bool HealthAllowed(grpc::CallbackServerContext* context,
                     std::string* why) const {
    return Allowed(ApiCategory::kHealth, context, why);
  }

  // Ends the streams still open, once each has answered what it took: a
  // stream that a client keeps open would otherwise hold the server's
  // shutdown forever.
  void CloseStreams() {
    std::lock_guard<std::mutex> lock(streams_mutex_);
    closing_streams_ = true;
    for (StreamCall* stream : streams_) stream->Close();
  }

  // Whether every call taken is answered: no inference request on its way
  // to a model or in one, no control call running, no stream open (a
  // stream is cancelled by CancelStalledStreams). A call still open then
  // waits only for its client to read the answer.
  bool AllAnswered() {
    if (infer_calls_.load() != 0 || !control_.Idle()) return false;
    std::lock_guard<std::mutex> lock(streams_mutex_);
    return streams_.empty();
  }

  // Cancels the closing streams whose every request is answered but whose
  // client has read none of the answers for `grace`: HTTP/2 flow control
  // holds the write, and with it the server's shutdown, until
  // --exit-timeout-secs. Called again and again while gRPC shuts down.
  void CancelStalledStreams(std::chrono::steady_clock::duration grace) {
    const auto now = std::chrono::steady_clock::now();
    // Held while cancelling: OnDone takes it before the stream is freed.
    std::lock_guard<std::mutex> lock(streams_mutex_);
    for (StreamCall* stream : streams_) {
      stream->CancelIfStalled(now, grace, StreamCall::Stall::kStopping);
    }
  }

 private:
  // Counts an inference call taken. Bounded as the sync server's threads
  // bounded them: the model queues refuse what they cannot hold, but the
  // decoded requests of calls on their way there are memory too. False,
  // with `refused` set, when the server holds as many as it may.
  // A call taken holds its place until its answer is written, not merely
  // made: a client that reads none of its answers (unary ones, or a
  // stream's) cannot have the server hold more than that many.
  bool TakeInferCall(Status* refused) {
    if (open_infer_calls_.fetch_add(1) < max_infer_calls_) {
      infer_calls_.fetch_add(1);
      return true;
    }
    open_infer_calls_.fetch_sub(1);
    int cancelled = 0;
    try {
      cancelled = CancelUnreadAnswers();
    } catch (const std::exception&) {
      // Memory for the log line, or a lock: refused all the same.
    }
    refused->code = StatusCode::kResourceExhausted;
    try {
      refused->message = "the server is taking " +
                         std::to_string(max_infer_calls_) +
                         " inference calls already (--grpc-threads)";
      if (cancelled > 0) {
        refused->message += "; " + std::to_string(cancelled) +
                            " whose answers went unread for " +
                            std::to_string(kUnreadAnswerGrace.count()) +
                            " s are being cancelled: retry";
      }
    } catch (const std::exception&) {
      refused->message.clear();  // refused all the same
    }
    return false;
  }

  // Every place being held, cancels the calls whose answers have waited
  // unwritten for kUnreadAnswerGrace (unary calls answered that long ago,
  // streams whose writes made no progress for that long): clients that
  // read nothing would otherwise hold the places until they went, and
  // every other client would be refused meanwhile. A slow reader is cut
  // off only when its place is wanted. At most once every 100 ms, however
  // many calls are refused. Returns how many it cancelled.
  int CancelUnreadAnswers() {
    using Clock = std::chrono::steady_clock;
    const Clock::time_point now = Clock::now();
    const Clock::rep now_ticks = now.time_since_epoch().count();
    Clock::rep last = last_unread_sweep_.load();
    if (now_ticks - last < std::chrono::duration_cast<Clock::duration>(
                               std::chrono::milliseconds(100))
                               .count() ||
        !last_unread_sweep_.compare_exchange_strong(last, now_ticks)) {
      return 0;
    }
    int cancelled = 0;
    {
      // Held while cancelling: OnDone takes it before the call is freed.
      std::lock_guard<std::mutex> lock(answered_mutex_);
      for (InferReactor* r = answered_head_; r != nullptr; r = r->next_) {
        if (r->cancelled_ || now - r->answered_at_ < kUnreadAnswerGrace) {
          continue;
        }
        r->cancelled_ = true;
        r->context_->TryCancel();
        ++cancelled;
      }
    }
    {
      std::lock_guard<std::mutex> lock(streams_mutex_);
      for (StreamCall* stream : streams_) {
        cancelled += stream->CancelIfStalled(now, kUnreadAnswerGrace,
                                             StreamCall::Stall::kPlacesHeld);
      }
    }
    if (cancelled > 0) {
      LOG_EVERY_N(WARNING, 100)
          << "grpc: every one of the " << max_infer_calls_
          << " --grpc-threads places is held; cancelled " << cancelled
          << " call(s) whose answers went unread for "
          << kUnreadAnswerGrace.count()
          << " s (clients that read slowly or not at all; one in 100 of "
             "these is logged)";
    }
    return cancelled;
  }

  // Ends what TakeInferCall took, once the call's answer is written or
  // the call ended unwritten.
  void ReleaseInferCall() { open_infer_calls_.fetch_sub(1); }

  // A ModelInfer call's reactor: the call holds its place (TakeInferCall)
  // until gRPC is done with it, its answer written or the call cancelled.
  class InferReactor final : public grpc::ServerUnaryReactor {
   public:
    InferReactor(Service* service, grpc::CallbackServerContext* context)
        : service_(service), context_(context) {}
    void HoldCall() { holds_call_ = true; }
    // Finishes a call that holds its place, listed among those whose
    // answers are being written (CancelUnreadAnswers) until OnDone.
    void FinishHeld(const grpc::Status& answer) {
      {
        std::lock_guard<std::mutex> lock(service_->answered_mutex_);
        answered_at_ = std::chrono::steady_clock::now();
        next_ = service_->answered_head_;
        if (next_ != nullptr) next_->prev_ = this;
        service_->answered_head_ = this;
        listed_ = true;
      }
      Finish(answer);
    }
    void OnDone() override {
      if (listed_) {
        std::lock_guard<std::mutex> lock(service_->answered_mutex_);
        if (prev_ != nullptr) {
          prev_->next_ = next_;
        } else {
          service_->answered_head_ = next_;
        }
        if (next_ != nullptr) next_->prev_ = prev_;
      }
      if (holds_call_) service_->ReleaseInferCall();
      delete this;
    }
    void OnCancel() override {}

   private:
    friend class Service;
    Service* service_;
    grpc::CallbackServerContext* context_;
    // Set on the thread that took the call, read on gRPC's (atomic: gRPC's
    // own ordering is not seen by ThreadSanitizer).
    std::atomic<bool> holds_call_{false};
    // Whether it is in the service's list of answered calls: set before
    // Finish, read in OnDone (atomic as holds_call_ is). The rest is under
    // the service's answered_mutex_.
    std::atomic<bool> listed_{false};
    bool cancelled_ = false;
    std::chrono::steady_clock::time_point answered_at_;
    InferReactor* prev_ = nullptr;
    InferReactor* next_ = nullptr;
  };

  // Ties a request to its call, so that a queued request whose caller has
  // gone is not run: the call's deadline (gRPC's, which tritonclient's
  // client_timeout sets) and its cancellation (InferRequest::
  // caller_deadline and abandoned). The context outlives the request's
  // stay in the queue: a call is finished only once its requests are
  // answered.
  static void FollowCaller(grpc::CallbackServerContext* context,
                           InferRequest* request) {
    using std::chrono::system_clock;
    const system_clock::time_point deadline = context->deadline();
    const auto left = deadline - system_clock::now();
    // None is time_point::max(); a deadline years ahead is none too (and
    // would overflow the steady clock's time point).
    if (deadline != system_clock::time_point::max() &&
        left < std::chrono::hours(24 * 365)) {
      request->caller_deadline =
          std::chrono::steady_clock::now() +
          std::chrono::duration_cast<std::chrono::steady_clock::duration>(left);
    }
    request->abandoned = [context] { return context->IsCancelled(); };
  }

  // Hands a decoded request to `version` (FindToRun's). `answer` gets the
  // model's answer, or an internal error when InferAsync throws (memory
  // running out) before it hands the request on; it must act only once.
  template <typename OnAnswer>
  void HandOver(std::shared_ptr<ModelVersion> version,
                InferRequest request,
                const OnAnswer& answer) {
    try {
      server_->InferAsync(
          std::move(request),
          [answer](InferResponse result) { answer(result); },
          std::move(version));
    } catch (const std::exception& e) {
      InferResponse failed;
      failed.status = Status::Error(
          StatusCode::kInternal,
          std::string("the server failed to take the call: ") + e.what());
      answer(failed);
    }
  }

  // Whether a call of `category` may be served (--grpc-restricted-protocol):
  // not restricted, or its metadata holds the key; else `why` says which.
  bool Allowed(ApiCategory category,
               grpc::CallbackServerContext* context,
               std::string* why) const {
    if (restricted_.empty()) return true;
    return restricted_.Allows(
        category,
        [context](const std::string& key, std::string* value) {
          auto found = context->client_metadata().find(key);
          if (found == context->client_metadata().end()) return false;
          value->assign(found->second.data(), found->second.size());
          return true;
        },
        why);
  }

  // With --grpc-restricted-protocol: a call of a restricted category
  // without the metadata expected is answered PERMISSION_DENIED here.
  bool Refused(ApiCategory category,
               grpc::CallbackServerContext* context,
               grpc::ServerUnaryReactor* reactor) {
    std::string why;
    const bool allowed = Allowed(category, context, &why);
    if (allowed) return false;
    reactor->Finish(grpc::Status(grpc::StatusCode::PERMISSION_DENIED, why));
    return true;
  }

  // Parses a unary call's message, answers it from `handle` (which fills
  // the response and returns its status), and finishes the call.
  template <typename Request, typename Response, typename Handle>
  grpc::ServerUnaryReactor* Unary(ApiCategory category,
                                  grpc::CallbackServerContext* context,
                                  const grpc::ByteBuffer* request_bytes,
                                  grpc::ByteBuffer* response_bytes,
                                  Handle handle) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    if (Refused(category, context, reactor)) return reactor;
    reactor->Finish(
        Answer<Request, Response>(request_bytes, response_bytes, handle));
    return reactor;
  }

  // Unary, answered on a control thread of its own: loads take seconds
  // and unloads wait for the model's requests, which would hold one of
  // gRPC's callback threads meanwhile. gRPC keeps the call's buffers until
  // it is finished.
  template <typename Request, typename Response, typename Handle>
  grpc::ServerUnaryReactor* UnaryOnControlThread(
      ApiCategory category,
      grpc::CallbackServerContext* context,
      const grpc::ByteBuffer* request_bytes,
      grpc::ByteBuffer* response_bytes,
      Handle handle) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    if (Refused(category, context, reactor)) return reactor;
    const bool posted = control_.TryPost(
        [this, reactor, request_bytes, response_bytes, handle] {
          reactor->Finish(
              Answer<Request, Response>(request_bytes, response_bytes, handle));
        });
    if (!posted) {
      reactor->Finish(grpc::Status(
          grpc::StatusCode::RESOURCE_EXHAUSTED,
          "the server is running as many model loads and unloads as it "
          "takes at once (" +
              std::to_string(ControlThreads::kMaxTasks) + "); retry"));
    }
    return reactor;
  }

  // A unary call's answer: its message parsed, `handle` (which fills the
  // response and returns its status) called, the response serialized.
  template <typename Request, typename Response, typename Handle>
  grpc::Status Answer(const grpc::ByteBuffer* request_bytes,
                      grpc::ByteBuffer* response_bytes,
                      const Handle& handle) {
    grpc::Status answer;
    try {
      Request request;
      Response response;
      Status status;
      if (!grpc::SerializationTraits<Request>::Deserialize(
               const_cast<grpc::ByteBuffer*>(request_bytes), &request)
               .ok()) {
        status = NotTheMessage<Request>();
      } else {
        status = handle(request, &response);
      }
      answer = GrpcStatus(status);
      if (status.ok()) {
        bool own_buffer = false;
        answer = grpc::SerializationTraits<Response>::Serialize(
            response, response_bytes, &own_buffer);
      }
    } catch (const std::exception& e) {
      // Memory running out: still answered, with a message.
      answer = grpc::Status(grpc::StatusCode::INTERNAL,
                            std::string("the call failed: ") + e.what());
    }
    return answer;
  }

  // The version a metadata or config call asks for, when it is ready.
  Status FindReady(const std::string& name,
                   const std::string& version,
                   std::shared_ptr<const ModelVersion>* model) {
    Status status = server_->Find(name, version, model);
    if (!status.ok()) return status;
    if (!(*model)->ready()) {
      return Status::Error(StatusCode::kUnavailable,
                           "model '" + (*model)->name() + "' version " +
                               (*model)->version() +
                               " is not ready: " + (*model)->error());
    }
    return Status();
  }

  Status DescribeConfig(const inference::ModelConfigRequest& request,
                        inference::ModelConfig* config) {
    std::shared_ptr<const ModelVersion> model;
    Status status = FindReady(request.name(), request.version(), &model);
    if (!status.ok()) return status;
    const ServedConfig served = model->Served();
    config->set_name(model->name());
    config->set_platform("paddle");
    config->set_backend("pdlite");
    config->set_max_batch_size(served.max_batch_size);
    auto type = [](const std::string& name) {
      inference::DataType value = inference::TYPE_INVALID;
      inference::DataType_Parse(name, &value);
      return value;
    };
    for (const ServedConfig::Tensor& t : served.inputs) {
      auto* input = config->add_input();
      input->set_name(t.name);
      input->set_data_type(type(t.data_type));
      for (const int64_t d : t.dims) input->add_dims(d);
    }
    for (const ServedConfig::Tensor& t : served.outputs) {
      auto* output = config->add_output();
      output->set_name(t.name);
      output->set_data_type(type(t.data_type));
      for (const int64_t d : t.dims) output->add_dims(d);
      output->set_label_filename(t.label_filename);
    }
    auto* group = config->add_instance_group();
    group->set_name(model->name());
    group->set_count(served.instance_count);
    inference::ModelInstanceGroup::Kind kind =
        inference::ModelInstanceGroup::KIND_CPU;
    inference::ModelInstanceGroup::Kind_Parse(served.instance_kind, &kind);
    group->set_kind(kind);
    for (const int gpu : served.gpus) group->add_gpus(gpu);
    if (served.max_queue_delay_us >= 0) {
      config->mutable_dynamic_batching()->set_max_queue_delay_microseconds(
          static_cast<uint64_t>(served.max_queue_delay_us));
    }
    return Status();
  }

  Status DescribeModel(const inference::ModelMetadataRequest& request,
                       inference::ModelMetadataResponse* response) {
    std::shared_ptr<const ModelVersion> model;
    Status status = FindReady(request.name(), request.version(), &model);
    if (!status.ok()) return status;
    response->set_name(model->name());
    for (const std::string& v : server_->Versions(model->name())) {
      response->add_versions(v);
    }
    response->set_platform("paddle");
    auto describe = [](const paddle_lite::TensorInfo& info, auto* tensor) {
      tensor->set_name(info.name);
      tensor->set_datatype(ProtocolTypeName(info.type));
      for (const int64_t d : info.shape) tensor->add_shape(d);
    };
    for (const auto& info : model->inputs()) {
      describe(info, response->add_inputs());
    }
    for (const auto& info : model->outputs()) {
      describe(info, response->add_outputs());
    }
    return Status();
  }

  struct InferCall {
    inference::ModelInferRequest wire;
    inference::ModelInferResponse response;
    std::atomic<bool> answered{false};
  };

  grpc::Status Answer(const inference::ModelInferRequest& wire,
                      const Status& status,
                      std::chrono::steady_clock::time_point start) {
    if (server_->log_settings().LogRequests()) {
      const double ms = std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - start)
                            .count();
      // Cut and escaped: a client's names may be megabytes long, or hold
      // a newline that would start a forged log line.
      LOG(INFO) << "grpc ModelInfer model=" << LoggedText(wire.model_name())
                << " version=" << LoggedText(wire.model_version())
                << " id=" << LoggedText(wire.id()) << " status="
                << (status.ok() ? "OK" : LoggedText(status.message, 4096))
                << " ms=" << ms;
    }
    return GrpcStatus(status);
  }

  // One ModelStreamInfer call. Requests are read one at a time and run
  // concurrently, at most kStreamInFlight of a stream at once (past that it
  // reads no further until one is answered: the client's sends wait, the
  // server's memory does not grow); answers are written in the order they
  // complete, one write at a time. A request that fails is answered with
  // its error_message, and the stream goes on. The call finishes once the
  // client has closed its side (or cancelled, or the server closes the
  // streams) and every request taken is answered.
  class StreamCall final
      : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
   public:
    static constexpr int kStreamInFlight = 64;

    StreamCall(Service* service, grpc::CallbackServerContext* context)
        : service_(service), context_(context) {
      CallbackOrder in_order(this);
      std::string why;
      if (!service_->Allowed(ApiCategory::kInference, context, &why)) {
        finished_ = true;
        Finish(grpc::Status(grpc::StatusCode::PERMISSION_DENIED, why));
        return;
      }
      {
        std::lock_guard<std::mutex> lock(service_->streams_mutex_);
        service_->streams_.insert(this);
        closing_ = service_->closing_streams_;
      }
      std::unique_lock<std::mutex> lock(mutex_);
      if (closing_) {
        // CloseStreams may have finished it already, once registered.
        if (finished_) return;
        finished_ = true;
        lock.unlock();
        Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                            "the server is shutting down"));
        return;
      }
      ReadIfRoom();
    }

    // Each request read is answered exactly once, whatever throws (memory
    // running out): gRPC swallows an exception thrown from a reaction, and
    // a request counted in flight but never answered would keep the
    // stream, and the server's exit, open for good.
    void OnReadDone(bool ok) override {
      CallbackOrder in_order(this);
      std::unique_lock<std::mutex> lock(mutex_);
      reading_ = false;
      // A message that arrives once the call is finished (cancelled or
      // closed meanwhile) is not run: nothing may answer on the call, which
      // gRPC frees once this returns.
      if (!ok || finished_) {
        reads_done_ = true;
        FinishIfDone(&lock);
        return;
      }
      ++in_flight_;
      std::shared_ptr<inference::ModelInferRequest> wire;
      bool parsed = false;
      try {
        wire = std::make_shared<inference::ModelInferRequest>();
        parsed = grpc::SerializationTraits<
                     inference::ModelInferRequest>::Deserialize(&read_buffer_,
                                                                wire.get())
                     .ok();
      } catch (const std::exception&) {
        read_buffer_.Clear();
        wire.reset();
      }
      ReadIfRoom();
      lock.unlock();
      if (!wire) {
        inference::ModelStreamInferResponse out;
        try {
          out.set_error_message("out of memory to read the request");
        } catch (const std::exception&) {
          // An empty answer, still one.
        }
        return Write(out, false);
      }
      Run(std::move(wire), parsed);
    }

    void OnWriteDone(bool ok) override {
      CallbackOrder in_order(this);
      std::unique_lock<std::mutex> lock(mutex_);
      PopWrite();
      if (!ok) {  // the client is gone
        while (!writes_.empty()) PopWrite();
      }
      write_progress_ = std::chrono::steady_clock::now();
      // Room for another request, now that its answer is out.
      ReadIfRoom();
      writing_ = !writes_.empty();
      if (writing_) StartWrite(&writes_.front().bytes);
      FinishIfDone(&lock);
    }

    void OnCancel() override {
      CallbackOrder in_order(this);
      std::unique_lock<std::mutex> lock(mutex_);
      cancelled_ = true;
      FinishIfDone(&lock);
    }

    void OnDone() override {
      {
        CallbackOrder in_order(this);
        std::lock_guard<std::mutex> lock(service_->streams_mutex_);
        service_->streams_.erase(this);
      }
      // None should be left (a finished call has written or dropped every
      // answer); if one were, its place would be lost for good.
      while (!writes_.empty()) PopWrite();
      delete this;
    }

    // The server is stopping: no more reads; finished once answered.
    void Close() {
      std::unique_lock<std::mutex> lock(mutex_);
      closing_ = true;
      FinishIfDone(&lock);
    }

    // Why a stream whose client reads none of its answers is cancelled:
    // the server stops (Service::CancelStalledStreams), or every place is
    // held (Service::CancelUnreadAnswers, which logs it itself).
    enum class Stall { kStopping, kPlacesHeld };

    // Cancels the stream if its write has made no progress for `grace`;
    // stopping, only once every request it took is answered. Returns
    // whether it did.
    bool CancelIfStalled(std::chrono::steady_clock::time_point now,
                         std::chrono::steady_clock::duration grace,
                         Stall why) {
      size_t unwritten = 0;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (finished_ || cancelled_ || stall_cancelled_ || !writing_ ||
            now - write_progress_ < grace) {
          return false;
        }
        if (why == Stall::kStopping && (!closing_ || in_flight_ > 0)) {
          return false;
        }
        // Wanted for its places: one whose unwritten answers hold none
        // (refusals) would free nothing.
        if (why == Stall::kPlacesHeld &&
            std::none_of(writes_.begin(), writes_.end(),
                         [](const Unwritten& w) { return w.holds_call; })) {
          return false;
        }
        stall_cancelled_ = true;
        unwritten = writes_.size();
      }
      if (why == Stall::kStopping) {
        LOG(WARNING)
            << "grpc ModelStreamInfer: the client at " << context_->peer()
            << " read no answer for "
            << std::chrono::duration_cast<std::chrono::seconds>(grace).count()
            << " s while the server stops; cancelling its stream with "
            << unwritten << " answer(s) unwritten";
      }
      // Thread-safe; the write pending fails (OnWriteDone(false)) and
      // OnCancel follows, on gRPC's threads, which finish the call.
      context_->TryCancel();
      return true;
    }

   private:
    // Runs one request (never under mutex_: an idle instance runs it on
    // this thread), answering it on the stream.
    void Run(std::shared_ptr<inference::ModelInferRequest> wire, bool parsed) {
      const auto start = std::chrono::steady_clock::now();
      // `holds_call`: the answer holds the request's place (TakeInferCall)
      // until written.
      auto answer = [this, wire, start](const InferResponse& result,
                                        bool holds_call) {
        Write(StreamAnswer(*wire, result, start), holds_call);
      };
      InferResponse refused;
      std::shared_ptr<std::atomic<bool>> answered;
      std::shared_ptr<ModelVersion> found;
      InferRequest request;
      // Until the call is counted (TakeInferCall), a throw refuses it
      // below; after, nothing throws before HandOver, which answers it
      // itself.
      try {
        if (!parsed) {
          refused.status = NotTheMessage<inference::ModelInferRequest>();
          // What the failed parse left (a string field that is not UTF-8,
          // say) is not echoed: the answer would not parse either, and a
          // client that cannot read an answer ends its stream.
          wire->Clear();
        } else {
          refused.status = service_->server_->FindToRun(
              wire->model_name(), wire->model_version(), &found);
        }
        if (refused.status.ok()) {
          refused.status = DecodeGrpcInferRequest(*wire, &request);
        }
        if (refused.status.ok()) {
          FollowCaller(context_, &request);
          answered = std::make_shared<std::atomic<bool>>(false);
        }
      } catch (const std::exception& e) {
        refused.status.code = StatusCode::kResourceExhausted;
        try {
          refused.status.message =
              std::string("the server failed to take the request: ") + e.what();
        } catch (const std::exception&) {
          refused.status.message.clear();
        }
      }
      if (!refused.status.ok()) return answer(refused, false);
      if (!service_->TakeInferCall(&refused.status)) {
        return answer(refused, false);
      }
      // Answered once, from the model's answer or from an exception that
      // InferAsync throws before it hands the request on.
      auto once = [this, answered, answer](const InferResponse& result) {
        if (answered->exchange(true)) return;
        service_->infer_calls_.fetch_sub(1);
        answer(result, true);
      };
      service_->HandOver(std::move(found), std::move(request), once);
    }

    // The answer to one request of the stream. An error echoes the
    // request's model, version and id, cut where the answer would not fit
    // in a message (gRPC would fail the whole stream); an answer that
    // cannot be made (memory) still goes out, saying so.
    inference::ModelStreamInferResponse StreamAnswer(
        const inference::ModelInferRequest& wire,
        const InferResponse& result,
        std::chrono::steady_clock::time_point start) {
      inference::ModelStreamInferResponse out;
      try {
        Status status = result.status;
        if (status.ok()) {
          try {
            EncodeGrpcInferResponse(result, wire.id(),
                                    out.mutable_infer_response());
            status = service_->FitsMessage(wire, out.ByteSizeLong());
          } catch (const std::bad_alloc&) {
            status = OutOfMemoryForAnswer(wire);
          }
        }
        service_->Answer(wire, status, start);
        if (status.ok()) return out;
        out.Clear();
        out.set_error_message(Capped(status.message));
        auto* echo = out.mutable_infer_response();
        echo->set_model_name(wire.model_name());
        echo->set_model_version(wire.model_version());
        echo->set_id(wire.id());
        if (out.ByteSizeLong() > service_->max_message_bytes_) {
          echo->set_model_name(Capped(wire.model_name()));
          echo->set_model_version(Capped(wire.model_version()));
        }
        if (out.ByteSizeLong() > service_->max_message_bytes_) {
          echo->set_id(Capped(wire.id()));
        }
      } catch (const std::exception&) {
        out.Clear();
        try {
          out.set_error_message("out of memory to answer the request");
        } catch (const std::exception&) {
          // An empty answer, still one.
        }
      }
      return out;
    }

    // Queues an answer; the request it answers is no longer in flight,
    // though its answer counts against kStreamInFlight until written (and,
    // `holds_call`, holds its request's place in the server's calls).
    void Write(const inference::ModelStreamInferResponse& out,
               bool holds_call) {
      grpc::ByteBuffer bytes;
      bool own_buffer = false;
      bool serialized = false;
      try {
        serialized =
            grpc::SerializationTraits<
                inference::ModelStreamInferResponse>::Serialize(out, &bytes,
                                                                &own_buffer)
                .ok();
      } catch (const std::bad_alloc&) {
        bytes.Clear();
      }
      if (!serialized) {
        // Still answered, so that the client does not wait for it (an empty
        // message if even that cannot be made), in a buffer emptied of what
        // the failed try left (gRPC serializes only into an empty one).
        bytes.Clear();
        try {
          inference::ModelStreamInferResponse failed;
          failed.set_error_message("the response could not be serialized");
          failed.mutable_infer_response()->set_id(
              Capped(out.infer_response().id()));
          grpc::SerializationTraits<
              inference::ModelStreamInferResponse>::Serialize(failed, &bytes,
                                                              &own_buffer);
        } catch (const std::bad_alloc&) {
          bytes.Clear();
        }
      }
      std::unique_lock<std::mutex> lock(mutex_);
      --in_flight_;
      bool queued = false;
      if (!cancelled_ && !finished_) {
        try {
          writes_.push_back(Unwritten{std::move(bytes), holds_call});
          queued = true;
        } catch (const std::bad_alloc&) {
          // Not answered, but the stream goes on and ends.
        }
      }
      if (!queued && holds_call) service_->ReleaseInferCall();
      if (queued && !writing_) {
        writing_ = true;
        write_progress_ = std::chrono::steady_clock::now();
        StartWrite(&writes_.front().bytes);
      }
      ReadIfRoom();
      FinishIfDone(&lock);
    }

    // Drops the front answer (written, or the client gone), and with it
    // its request's place. With mutex_ held, or once no other thread can
    // touch the call.
    void PopWrite() {
      if (writes_.front().holds_call) service_->ReleaseInferCall();
      writes_.pop_front();
    }

    // With mutex_ held.
    void ReadIfRoom() {
      // Answers not yet written count too: a client that sends but does
      // not read its answers stops being read.
      if (reading_ || reads_done_ || cancelled_ || closing_ || finished_ ||
          in_flight_ + static_cast<int>(writes_.size()) >= kStreamInFlight) {
        return;
      }
      reading_ = true;
      StartRead(&read_buffer_);
    }

    // Finishes the call once nothing is left to answer or write, releasing
    // `lock` (on mutex_) first: gRPC may delete this (OnDone) as soon as
    // the call is finished, so nothing of it is touched after. A read
    // still pending ends with the call (OnReadDone(false) comes before
    // OnDone); a write may not be pending (one write at a time, and Finish
    // counts as one).
    void FinishIfDone(std::unique_lock<std::mutex>* lock) {
      if (finished_ || in_flight_ > 0 || writing_) return;
      if (!cancelled_ && !reads_done_ && !closing_) return;
      // Closed by the server before the client was done: what it sends
      // after is not read, which the status says. Without memory for the
      // message, the code alone: there may be no later chance to finish.
      grpc::Status status =
          cancelled_ ? grpc::Status::CANCELLED : grpc::Status::OK;
      if (!cancelled_ && !reads_done_) {
        try {
          status = grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                "the server is shutting down");
        } catch (const std::bad_alloc&) {
          status = grpc::Status(grpc::StatusCode::UNAVAILABLE, std::string());
        }
      }
      finished_ = true;
      lock->unlock();
      Finish(status);
    }

    Service* const service_;
    grpc::CallbackServerContext* const context_;
    std::mutex mutex_;
    grpc::ByteBuffer read_buffer_;
    // An answer queued, and whether it holds its request's place.
    struct Unwritten {
      grpc::ByteBuffer bytes;
      bool holds_call;
    };
    std::deque<Unwritten> writes_;  // the front one being written
    // When the write under way started, or the last one ended.
    std::chrono::steady_clock::time_point write_progress_;
    int in_flight_ = 0;
    bool reading_ = false;
    bool writing_ = false;
    bool reads_done_ = false;
    bool cancelled_ = false;
    bool closing_ = false;
    bool finished_ = false;
    bool stall_cancelled_ = false;
  };

  InferenceServer* server_;
  const int max_infer_calls_;
  // The most a message may hold, received or sent (--max-body-mb).
  const size_t max_message_bytes_;
  const ApiRestrictions restricted_;
  // The ModelStreamInfer calls open, for CloseStreams.
  std::mutex streams_mutex_;
  std::set<StreamCall*> streams_;
  bool closing_streams_ = false;
  // Inference calls taken and not yet answered; and those whose answers
  // are not yet written either (TakeInferCall).
  std::atomic<int> infer_calls_{0};
  std::atomic<int> open_infer_calls_{0};
  // ModelInfer calls answered whose answers are not yet written (a list
  // through InferReactor), and when CancelUnreadAnswers last looked
  // (steady clock ticks).
  std::mutex answered_mutex_;
  InferReactor* answered_head_ = nullptr;
  std::atomic<std::chrono::steady_clock::rep> last_unread_sweep_{0};
  // Last: its thread finishes before the members above go.
  ControlThreads control_;
};

GrpcFrontend::GrpcFrontend(InferenceServer* server, GrpcOptions options)
    : server_(server), options_(std::move(options)) {}

GrpcFrontend::~GrpcFrontend() { Stop(); }

int GrpcFrontend::Start() {
  static std::once_flag log_handler;
  std::call_once(log_handler,
                 [] { google::protobuf::SetLogHandler(&ProtobufLog); });
  const size_t max_bytes = std::min<size_t>(options_.max_message_bytes,
                                            std::numeric_limits<int>::max());
  service_ = std::make_unique<Service>(server_, options_.threads, max_bytes,
                                       options_.restricted);
  grpc::ServerBuilder builder;
  int port = -1;
  std::shared_ptr<grpc::ServerCredentials> credentials =
      grpc::InsecureServerCredentials();
  if (!options_.tls_cert_pem.empty()) {
    // With client authorities, a client must present a certificate they
    // signed (mutual TLS).
    grpc::SslServerCredentialsOptions tls(
        options_.tls_client_ca_pem.empty()
            ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
            : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
    tls.pem_root_certs = options_.tls_client_ca_pem;
    tls.pem_key_cert_pairs.push_back(
        {options_.tls_key_pem, options_.tls_cert_pem});
    credentials = grpc::SslServerCredentials(tls);
  }
  builder.AddListeningPort(
      HostForAddress(options_.host) + ":" + std::to_string(options_.port),
      credentials, &port);
  builder.SetMaxReceiveMessageSize(static_cast<int>(max_bytes));
  builder.SetMaxSendMessageSize(static_cast<int>(max_bytes));
  builder.RegisterService(service_.get());
  Service* service = service_.get();
  health_ = std::make_unique<GrpcHealthService>(
      [this] { return server_->Ready(); },
      [service](grpc::CallbackServerContext* context, std::string* why) {
        return service->HealthAllowed(context, why);
      });
  builder.RegisterService(health_->service());
  grpc_ = builder.BuildAndStart();
  if (!grpc_ || port <= 0) {
    grpc_.reset();
    return -1;
  }
  return port;
}

void GrpcFrontend::Stop() {
  if (!grpc_) return;
  // Open streams finish once they have answered what they took; health
  // watches at once.
  service_->CloseStreams();
  health_->Close();
  // A client that reads none of its answers would hold Shutdown below
  // until --exit-timeout-secs (for good with 0): HTTP/2 flow control holds
  // the answer's write. After a grace (as an idle HTTP connection is closed
  // after its keep-alive timeout) such a stream is cancelled; and once
  // every call taken has been answered for that long, the calls still
  // being written (unary ones) are cancelled too.
  std::mutex stopped_mutex;
  std::condition_variable stopped_changed;
  bool stopped = false;
  std::atomic<bool> shutdown_begun{false};
  std::thread stall_watch([&] {
    std::unique_lock<std::mutex> lock(stopped_mutex);
    using Clock = std::chrono::steady_clock;
    Clock::time_point answered_since = Clock::time_point::max();
    bool cancelled = false;
    while (!stopped_changed.wait_for(lock, std::chrono::milliseconds(100),
                                     [&] { return stopped; })) {
      service_->CancelStalledStreams(kUnreadAnswerGrace);
      if (cancelled) continue;
      const Clock::time_point now = Clock::now();
      if (!shutdown_begun || !service_->AllAnswered()) {
        answered_since = Clock::time_point::max();
      } else if (answered_since == Clock::time_point::max()) {
        answered_since = now;
      } else if (now - answered_since >= kUnreadAnswerGrace) {
        LOG(WARNING) << "grpc: every call taken was answered "
                     << std::chrono::duration_cast<std::chrono::seconds>(
                            kUnreadAnswerGrace)
                            .count()
                     << " s ago, but answers are still unwritten while the "
                        "server stops (clients that read slowly or not at "
                        "all); cancelling those calls";
        // Shutdown has begun and not ended (`stopped` is false).
        grpc_server_cancel_all_calls(grpc_->c_server());
        cancelled = true;
      }
    }
  });
  // Shutdown refuses new RPCs and waits for those running (each bounded by
  // the model's queue and timeout) before returning.
  shutdown_begun = true;
  grpc_->Shutdown();
  grpc_->Wait();
  {
    std::lock_guard<std::mutex> lock(stopped_mutex);
    stopped = true;
  }
  stopped_changed.notify_one();
  stall_watch.join();
  grpc_.reset();
  health_.reset();
}

}  // namespace serve
}  // namespace pdlite
