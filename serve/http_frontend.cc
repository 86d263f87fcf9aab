#include "serve/http_frontend.h"

#include <glog/logging.h>
#include <httplib.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

namespace pdlite {
namespace serve {

using json = nlohmann::json;
using paddle_lite::DataType;

namespace {

// httplib's thread pool, which also counts the connections waiting for a
// thread in `waiting` (httplib queues each accepted connection as one
// task, which serves its requests until the connection ends).
class ConnectionPool : public httplib::TaskQueue {
 public:
  ConnectionPool(size_t threads, std::atomic<size_t>* waiting)
      : waiting_(waiting) {
    for (size_t i = 0; i < threads; ++i)
      threads_.emplace_back([this] { Work(); });
  }

  /// Whether the connection the calling pool thread serves has had its
  /// thread for a turn, kTurn: then it is the next to give it up to those
  /// waiting. Turns of a whole connection's life would starve the clients
  /// beyond the thread count; turns of one request cost every request a new
  /// connection (20% of the load test's throughput).
  static bool TurnOver() {
    return std::chrono::steady_clock::now() - turn_start_ >= kTurn;
  }

  void enqueue(std::function<void()> task) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      tasks_.push_back(std::move(task));
      waiting_->fetch_add(1, std::memory_order_relaxed);
    }
    wake_.notify_one();
  }

  void shutdown() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  void Work() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mu_);
        wake_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
        if (tasks_.empty()) return;  // stopping, and nothing left to serve
        task = std::move(tasks_.front());
        tasks_.pop_front();
        waiting_->fetch_sub(1, std::memory_order_relaxed);
      }
      turn_start_ = std::chrono::steady_clock::now();
      task();
    }
  }

  static constexpr std::chrono::milliseconds kTurn{200};
  // When the calling pool thread took the connection it serves.
  static thread_local std::chrono::steady_clock::time_point turn_start_;

  std::atomic<size_t>* waiting_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

thread_local std::chrono::steady_clock::time_point ConnectionPool::turn_start_;

// The request's Content-Length, 0 when absent or not a number.
size_t ContentLength(const httplib::Request& req) {
  const std::string value = req.get_header_value("Content-Length");
  char* end = nullptr;
  errno = 0;
  const unsigned long long parsed = std::strtoull(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno != 0) return 0;
  return static_cast<size_t>(parsed);
}

Status Bad(std::string message) {
  return Status::Error(StatusCode::kInvalidArgument, std::move(message));
}

template <typename T>
void Append(std::string* bytes, T value) {
  bytes->append(reinterpret_cast<const char*>(&value), sizeof(T));
}

template <typename T>
bool AppendInteger(const json& v, std::string* bytes) {
  if (!v.is_number_integer()) return false;
  if (v.is_number_unsigned()) {
    auto u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<T>::max())) return false;
    Append<T>(bytes, static_cast<T>(u));
    return true;
  }
  auto i = v.get<int64_t>();
  if (i < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
      (i > 0 && static_cast<uint64_t>(i) >
                    static_cast<uint64_t>(std::numeric_limits<T>::max()))) {
    return false;
  }
  Append<T>(bytes, static_cast<T>(i));
  return true;
}

bool AppendElement(const json& v, DataType type, std::string* bytes) {
  switch (type) {
    case DataType::FLOAT32:
      if (!v.is_number()) return false;
      Append<float>(bytes, v.get<float>());
      return true;
    case DataType::FLOAT64:
      if (!v.is_number()) return false;
      Append<double>(bytes, v.get<double>());
      return true;
    case DataType::INT8:
      return AppendInteger<int8_t>(v, bytes);
    case DataType::UINT8:
      return AppendInteger<uint8_t>(v, bytes);
    case DataType::INT16:
      return AppendInteger<int16_t>(v, bytes);
    case DataType::INT32:
      return AppendInteger<int32_t>(v, bytes);
    case DataType::INT64:
      return AppendInteger<int64_t>(v, bytes);
    case DataType::BOOL:
      if (!v.is_boolean()) return false;
      Append<uint8_t>(bytes, v.get<bool>() ? 1 : 0);
      return true;
    default:
      return false;
  }
}

// Flattens a (possibly nested) JSON array, row major.
bool FlattenData(const json& data,
                 DataType type,
                 std::string* bytes,
                 int depth) {
  if (depth > 64) return false;
  if (data.is_array()) {
    for (auto& v : data) {
      if (!FlattenData(v, type, bytes, depth + 1)) return false;
    }
    return true;
  }
  return AppendElement(data, type, bytes);
}

template <typename T>
void AppendJsonValues(const std::string& bytes, json* out) {
  const size_t n = bytes.size() / sizeof(T);
  for (size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
    if constexpr (std::is_same_v<T, bool>) {
      out->push_back(v);
    } else if constexpr (std::is_floating_point_v<T>) {
      out->push_back(static_cast<double>(v));
    } else {
      out->push_back(v);
    }
  }
}

json DataToJson(const TensorData& t) {
  json out = json::array();
  switch (t.type) {
    case DataType::FLOAT32:
      AppendJsonValues<float>(t.bytes, &out);
      break;
    case DataType::FLOAT64:
      AppendJsonValues<double>(t.bytes, &out);
      break;
    case DataType::INT8:
      AppendJsonValues<int8_t>(t.bytes, &out);
      break;
    case DataType::UINT8:
      AppendJsonValues<uint8_t>(t.bytes, &out);
      break;
    case DataType::INT16:
      AppendJsonValues<int16_t>(t.bytes, &out);
      break;
    case DataType::INT32:
      AppendJsonValues<int32_t>(t.bytes, &out);
      break;
    case DataType::INT64:
      AppendJsonValues<int64_t>(t.bytes, &out);
      break;
    case DataType::BOOL:
      AppendJsonValues<bool>(t.bytes, &out);
      break;
    default:
      break;
  }
  return out;
}

std::string ErrorBody(const std::string& message) {
  return json{{"error", message}}.dump();
}

json TensorMetadata(const paddle_lite::TensorInfo& info) {
  return json{{"name", info.name},
              {"datatype", ProtocolTypeName(info.type)},
              {"shape", info.shape}};
}

}  // namespace

int HttpStatus(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return 200;
    case StatusCode::kInvalidArgument:
      return 400;
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kResourceExhausted:
    case StatusCode::kUnavailable:
      return 503;
    case StatusCode::kDeadlineExceeded:
      return 504;
    case StatusCode::kInternal:
      return 500;
  }
  return 500;
}

Status DecodeInferRequest(const std::string& body,
                          int64_t json_length,
                          InferRequest* request,
                          WireOptions* options) {
  if (json_length > static_cast<int64_t>(body.size()) || json_length == 0 ||
      json_length < -1) {
    return Bad("Inference-Header-Content-Length is " +
               std::to_string(json_length) + ", but the body has " +
               std::to_string(body.size()) + " bytes");
  }
  const size_t header_size =
      json_length < 0 ? body.size() : static_cast<size_t>(json_length);
  json j;
  try {
    j = json::parse(body.begin(), body.begin() + header_size);
  } catch (const json::exception& e) {
    return Bad(std::string("the request is not valid JSON: ") + e.what());
  }
  if (!j.is_object()) return Bad("the request must be a JSON object");
  if (j.contains("id")) {
    if (!j["id"].is_string()) return Bad("\"id\" must be a string");
    request->id = j["id"].get<std::string>();
  }
  if (j.contains("parameters")) {
    const json& p = j["parameters"];
    if (!p.is_object()) return Bad("\"parameters\" must be an object");
    if (p.contains("binary_data_output")) {
      if (!p["binary_data_output"].is_boolean()) {
        return Bad("parameter \"binary_data_output\" must be a boolean");
      }
      options->binary_default = p["binary_data_output"].get<bool>();
    }
    if (p.contains("timeout")) {
      if (!p["timeout"].is_number_integer() ||
          p["timeout"].get<int64_t>() < 0) {
        return Bad(
            "parameter \"timeout\" must be microseconds, an integer "
            ">= 0");
      }
      request->timeout_us = p["timeout"].get<int64_t>();
    }
  }
  if (!j.contains("inputs") || !j["inputs"].is_array()) {
    return Bad("the request needs \"inputs\", an array");
  }
  size_t binary_offset = header_size;
  for (const json& in : j["inputs"]) {
    if (!in.is_object() || !in.contains("name") || !in["name"].is_string()) {
      return Bad("every input needs a \"name\" string");
    }
    TensorData t;
    t.name = in["name"].get<std::string>();
    const std::string what = "input '" + t.name + "': ";
    if (!in.contains("datatype") || !in["datatype"].is_string()) {
      return Bad(what + "needs a \"datatype\" string");
    }
    const std::string datatype = in["datatype"].get<std::string>();
    if (!ParseProtocolType(datatype, &t.type)) {
      return Bad(what + "datatype '" + datatype +
                 "' is not supported (FP32, FP64, INT8, UINT8, INT16, INT32, "
                 "INT64, BOOL)");
    }
    if (!in.contains("shape") || !in["shape"].is_array()) {
      return Bad(what + "needs a \"shape\" array");
    }
    for (const json& d : in["shape"]) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0) {
        return Bad(what + "shape must hold integers >= 0, got " +
                   in["shape"].dump());
      }
      t.shape.push_back(d.get<int64_t>());
    }
    int64_t binary_size = -1;
    if (in.contains("parameters")) {
      const json& p = in["parameters"];
      if (!p.is_object()) return Bad(what + "\"parameters\" must be an object");
      if (p.contains("binary_data_size")) {
        if (!p["binary_data_size"].is_number_integer() ||
            p["binary_data_size"].get<int64_t>() < 0) {
          return Bad(what + "\"binary_data_size\" must be an integer >= 0");
        }
        binary_size = p["binary_data_size"].get<int64_t>();
      }
      if (p.contains("lod")) {
        const json& lod = p["lod"];
        bool ok = lod.is_array() && !lod.empty();
        for (const json& level : ok ? lod : json::array()) {
          if (!level.is_array()) {
            ok = false;
            break;
          }
          std::vector<size_t> offsets;
          for (const json& o : level) {
            if (!o.is_number_integer() || o.get<int64_t>() < 0) {
              ok = false;
              break;
            }
            offsets.push_back(static_cast<size_t>(o.get<int64_t>()));
          }
          t.lod.push_back(std::move(offsets));
        }
        if (!ok) {
          return Bad(what +
                     "\"lod\" must be a list of levels of offsets, "
                     "e.g. [[0, 3, 5]]");
        }
      }
    }
    if (binary_size >= 0) {
      if (in.contains("data")) {
        return Bad(what + "has both \"data\" and \"binary_data_size\"");
      }
      if (json_length < 0) {
        return Bad(what +
                   "\"binary_data_size\" without the "
                   "Inference-Header-Content-Length header");
      }
      if (static_cast<uint64_t>(binary_size) > body.size() - binary_offset) {
        return Bad(what + "binary_data_size " + std::to_string(binary_size) +
                   " runs past the end of the body (" +
                   std::to_string(body.size() - binary_offset) +
                   " bytes left after the earlier inputs)");
      }
      t.bytes = body.substr(binary_offset, static_cast<size_t>(binary_size));
      binary_offset += static_cast<size_t>(binary_size);
    } else {
      if (!in.contains("data")) {
        return Bad(what + "needs \"data\" or parameters.binary_data_size");
      }
      if (!FlattenData(in["data"], t.type, &t.bytes, 0)) {
        return Bad(what + "\"data\" must be an array of " + datatype +
                   " values");
      }
    }
    request->inputs.push_back(std::move(t));
  }
  if (binary_offset != body.size()) {
    return Bad("the body has " + std::to_string(body.size() - binary_offset) +
               " bytes after the JSON header that no input's "
               "binary_data_size accounts for");
  }
  if (j.contains("outputs")) {
    if (!j["outputs"].is_array()) return Bad("\"outputs\" must be an array");
    for (const json& out : j["outputs"]) {
      if (!out.is_object() || !out.contains("name") ||
          !out["name"].is_string()) {
        return Bad("every requested output needs a \"name\" string");
      }
      const std::string name = out["name"].get<std::string>();
      request->outputs.push_back(name);
      if (out.contains("parameters")) {
        const json& p = out["parameters"];
        if (!p.is_object()) {
          return Bad("output '" + name + "': \"parameters\" must be an object");
        }
        if (p.contains("binary_data")) {
          if (!p["binary_data"].is_boolean()) {
            return Bad("output '" + name +
                       "': \"binary_data\" must be a boolean");
          }
          options->binary_output[name] = p["binary_data"].get<bool>();
        }
      }
    }
  }
  return Status{};
}

std::string EncodeInferResponse(const InferResponse& response,
                                const std::string& id,
                                const WireOptions& options,
                                int64_t* json_length) {
  json j;
  j["model_name"] = response.model;
  j["model_version"] = response.version;
  if (!id.empty()) j["id"] = id;
  j["outputs"] = json::array();
  std::string binary;
  for (auto& out : response.outputs) {
    json o{{"name", out.name},
           {"datatype", ProtocolTypeName(out.type)},
           {"shape", out.shape}};
    json parameters = json::object();
    if (!out.lod.empty()) parameters["lod"] = out.lod;
    auto it = options.binary_output.find(out.name);
    bool as_binary =
        it != options.binary_output.end() ? it->second : options.binary_default;
    if (as_binary) {
      parameters["binary_data_size"] = out.bytes.size();
      binary += out.bytes;
    } else {
      o["data"] = DataToJson(out);
    }
    if (!parameters.empty()) o["parameters"] = parameters;
    j["outputs"].push_back(std::move(o));
  }
  std::string body = j.dump();
  bool any_binary = options.binary_default;
  for (auto& [name, b] : options.binary_output) any_binary |= b;
  *json_length = -1;
  if (any_binary) {
    *json_length = static_cast<int64_t>(body.size());
    body += binary;
  }
  return body;
}

HttpFrontend::HttpFrontend(InferenceServer* server, HttpOptions options)
    : server_(server),
      options_(std::move(options)),
      http_(std::make_unique<httplib::Server>()) {
  Route();
}

HttpFrontend::~HttpFrontend() = default;

int HttpFrontend::Bind() {
  const int port =
      options_.port == 0
          ? http_->bind_to_any_port(options_.host)
          : (http_->bind_to_port(options_.host, options_.port) ? options_.port
                                                               : -1);
  // httplib listens with a backlog of 5: a burst of clients connecting at
  // once overflows it, and some of them are reset. Listening again on the
  // listening socket only raises the backlog.
  if (port >= 0 && listen_fd_ >= 0) ::listen(listen_fd_, SOMAXCONN);
  return port;
}

void HttpFrontend::Serve() { http_->listen_after_bind(); }

void HttpFrontend::Stop() {
  stopping_ = true;
  if (listen_fd_ < 0) {  // never bound
    http_->stop();
    return;
  }
  // Not httplib's stop(): it marks the listening socket invalid, and every
  // connection thread checks that before reading its next request, so a
  // connection accepted but still queued for a pool thread, or a kept-alive
  // one whose next request had already arrived, was closed unread: requests
  // lost. Shutting the listening socket down instead makes accept() fail,
  // httplib stops accepting, closes it and drains its pool; the connections
  // it holds end after their current request (Connection: close below) or
  // their keep-alive timeout.
  if (!listener_shut_.exchange(true)) ::shutdown(listen_fd_, SHUT_RDWR);
}

void HttpFrontend::Route() {
  using httplib::Request;
  using httplib::Response;
  auto& http = *http_;
  const int threads = options_.threads;
  // More handler threads than queued requests, so a full queue is seen as
  // 503 rather than as connections waiting in the pool.
  http.new_task_queue = [this, threads] {
    return new ConnectionPool(threads, &waiting_connections_);
  };
  http.set_payload_max_length(options_.max_body_bytes);
  // httplib writes a response's headers and body separately: with Nagle's
  // algorithm the body waits for the client's delayed ACK of the headers
  // (40 ms on Linux) on every kept-alive request.
  http.set_tcp_nodelay(true);
  // httplib closes a kept-alive connection after 5 requests by default, so
  // a client paid a new connection (handshake, accept, a pool thread with
  // cold caches) every 5th request. A connection still ends after its
  // keep-alive timeout when idle, which is what frees its thread.
  http.set_keep_alive_max_count(std::numeric_limits<size_t>::max());
  // httplib creates the listening socket through this hook and has no
  // other way to give it out; Stop() needs it.
  http.set_socket_options([this](auto sock) {
    httplib::default_socket_options(sock);
    listen_fd_ = sock;
  });
  // Once stopping, clients are told to send nothing more on a connection.
  // So are they while other connections wait for a thread: a thread serves
  // one connection until it ends, and kept-alive connections that never
  // end left the clients beyond the thread count unanswered for good (24
  // of 56 in the load test, until its 120 s timeout). Closing, the client
  // connects again behind those waiting, and every client takes turns.
  http.set_post_routing_handler([this](const Request&, Response& res) {
    if (stopping_ ||
        (waiting_connections_.load(std::memory_order_relaxed) > 0 &&
         ConnectionPool::TurnOver())) {
      res.set_header("Connection", "close");
    }
  });
  auto send_json = [](Response& res, int status, const json& j) {
    res.status = status;
    res.set_content(j.dump(), "application/json");
  };
  auto send_error = [](Response& res, const Status& status) {
    res.status = HttpStatus(status.code);
    res.set_content(ErrorBody(status.message), "application/json");
  };
  const size_t max_body = options_.max_body_bytes;
  http.set_error_handler([max_body](const Request& req, Response& res) {
    if (!res.body.empty()) return;
    std::string message = "HTTP " + std::to_string(res.status) + " for " +
                          req.method + " " + req.path;
    if (res.status == 413) {
      message = "the request body is over the limit of " +
                std::to_string(max_body) + " bytes (--max-body-mb)";
    } else if (res.status == 404) {
      message = "no endpoint " + req.method + " " + req.path;
    }
    res.set_content(ErrorBody(message), "application/json");
  });
  if (options_.verbose) {
    // One line per request, with its time from the first byte read.
    static thread_local std::chrono::steady_clock::time_point started;
    http.set_pre_routing_handler([](const Request&, Response&) {
      started = std::chrono::steady_clock::now();
      return httplib::Server::HandlerResponse::Unhandled;
    });
    http.set_logger([](const Request& req, const Response& res) {
      double ms = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - started)
                      .count();
      LOG(INFO) << req.remote_addr << " " << req.method << " " << req.path
                << " " << res.status << " " << ContentLength(req) << "B in, "
                << res.body.size() << "B out, " << ms << " ms";
    });
  }

  http.Get("/v2/health/live", [this, send_json](const Request&, Response& res) {
    send_json(res, server_->Live() ? 200 : 400, json::object());
  });
  http.Get("/v2/health/ready", [this, send_json](const Request&,
                                                 Response& res) {
    if (server_->Ready()) {
      send_json(res, 200, json::object());
      return;
    }
    std::string why;
    for (auto& name : server_->ModelNames()) {
      for (auto& v : server_->Versions(name)) {
        const ModelVersion* m = nullptr;
        server_->Find(name, v, &m);
        if (m && !m->ready()) {
          why += (why.empty() ? "" : "; ") +
                 ("model '" + name + "' version " + v + ": " + m->error());
        }
      }
    }
    send_json(res, 400,
              {{"error", why.empty() ? "the server is shutting down"
                                     : "not every model is ready: " + why}});
  });
  http.Get("/v2", [send_json](const Request&, Response& res) {
    send_json(res, 200,
              {{"name", kServerName},
               {"version", kServerVersion},
               {"extensions", InferenceServer::Extensions()}});
  });
  http.Get("/metrics", [this](const Request&, Response& res) {
    res.set_content(server_->metrics().Render(),
                    "text/plain; version=0.0.4; charset=utf-8");
  });

  const std::string model_path = R"(/v2/models/([^/]+)(?:/versions/([^/]+))?)";
  http.Get(model_path, [this, send_json, send_error](const Request& req,
                                                     Response& res) {
    const ModelVersion* m = nullptr;
    Status status = server_->Find(req.matches[1], req.matches[2], &m);
    if (!status.ok()) return send_error(res, status);
    if (!m->ready()) {
      return send_error(res, Status::Error(StatusCode::kInvalidArgument,
                                           "model '" + m->name() +
                                               "' version " + m->version() +
                                               " is not ready: " + m->error()));
    }
    json inputs = json::array(), outputs = json::array();
    for (auto& i : m->inputs()) {
      json t = TensorMetadata(i);
      if (i.lod_level > 0) t["parameters"] = {{"lod_level", i.lod_level}};
      inputs.push_back(t);
    }
    for (auto& o : m->outputs()) outputs.push_back(TensorMetadata(o));
    send_json(res, 200,
              {{"name", m->name()},
               {"versions", server_->Versions(m->name())},
               {"platform", "paddle"},
               {"inputs", inputs},
               {"outputs", outputs}});
  });
  http.Get(model_path + "/ready", [this, send_json, send_error](
                                      const Request& req, Response& res) {
    const ModelVersion* m = nullptr;
    Status status = server_->Find(req.matches[1], req.matches[2], &m);
    if (!status.ok()) return send_error(res, status);
    if (!m->ready()) {
      return send_json(
          res, 400,
          {{"error", "model '" + m->name() + "' version " + m->version() +
                         " is not ready: " + m->error()}});
    }
    send_json(res, 200, json::object());
  });
  http.Post(model_path + "/infer", [this, send_error, max_body](
                                       const Request& req, Response& res,
                                       const httplib::ContentReader& read) {
    // The body goes into a buffer of the handler thread's, reused by its
    // next requests, where httplib's own grows a new string by doubling for
    // each request: under load the heap then kept creeping up for a minute
    // as connections moved between threads (RSS +2-3% from 20 s to 60 s of
    // the load test). Past kKeptBodyBytes it is not kept.
    constexpr size_t kKeptBodyBytes = size_t{1} << 20;
    thread_local std::string body;  // NOLINT: one per handler thread
    body.clear();
    body.reserve(std::min<size_t>(ContentLength(req), max_body));
    struct Release {
      ~Release() {
        if (body.capacity() > kKeptBodyBytes) std::string().swap(body);
      }
    } release;
    if (!read([](const char* data, size_t length) {
          body.append(data, length);
          return true;
        })) {
      return;  // httplib answers: over the size limit, or cut off
    }
    InferRequest request;
    request.model = req.matches[1];
    request.version = req.matches[2];
    WireOptions options;
    int64_t json_length = -1;
    if (req.has_header("Inference-Header-Content-Length")) {
      const std::string value =
          req.get_header_value("Inference-Header-Content-Length");
      char* end = nullptr;
      errno = 0;
      long long parsed = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || errno != 0 || parsed < 0) {
        return send_error(res, Bad("Inference-Header-Content-Length '" + value +
                                   "' is not a byte count"));
      }
      json_length = parsed;
    }
    Status status = DecodeInferRequest(body, json_length, &request, &options);
    if (!status.ok()) {
      status.message = "model '" + request.model + "': " + status.message;
      return send_error(res, status);
    }
    const std::string id = request.id;
    InferResponse response = server_->Infer(std::move(request));
    if (!response.status.ok()) return send_error(res, response.status);
    int64_t header_length = -1;
    std::string out =
        EncodeInferResponse(response, id, options, &header_length);
    if (header_length >= 0) {
      res.set_header("Inference-Header-Content-Length",
                     std::to_string(header_length));
      res.set_content(std::move(out), "application/octet-stream");
    } else {
      res.set_content(std::move(out), "application/json");
    }
  });
}

}  // namespace serve
}  // namespace pdlite
