#include "serve/http_frontend.h"

#include <arpa/inet.h>
#include <glog/logging.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <netdb.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "serve/http_compression.h"

namespace pdlite {
namespace serve {

using json = nlohmann::json;
using paddle_lite::DataType;

namespace {

Status Bad(std::string message) {
  return Status::Error(StatusCode::kInvalidArgument, std::move(message));
}

// JSON text. What a client names (a model in a URL, say) may be any
// bytes: those that are not UTF-8 are replaced, not thrown on (a throw
// here once ended the server).
std::string Dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string ErrorBody(const std::string& message) {
  return Dump(json{{"error", message}});
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
    case StatusCode::kAlreadyExists:
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
    case StatusCode::kCancelled:
      // nginx's "client closed request": no one reads it, but the log
      // line shows it.
      return 499;
  }
  return 500;
}

// ------------------------------------------------------------- the server

namespace {

using Clock = std::chrono::steady_clock;

// What a handler answers.
struct Reply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  int64_t header_length = -1;  // Inference-Header-Content-Length, if >= 0
  std::string allow;           // a 405's Allow header
};

// Whether the client of `connection` has closed its side, or the
// connection broke: its request, still queued, then need not run
// (InferRequest::abandoned), as nginx takes a client's close for its
// going away. The socket stays open while the connection's thread waits
// on the request, so the descriptor is still this connection's (were the
// handler ever to suspend the connection instead of waiting, that would
// no longer hold).
std::function<bool()> ClientGone(MHD_Connection* connection) {
  const MHD_ConnectionInfo* info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  if (info == nullptr) return nullptr;
  const int fd = info->connect_fd;
  return [fd] {
    pollfd socket{fd, POLLRDHUP, 0};
    return ::poll(&socket, 1, 0) > 0 &&
           (socket.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
  };
}

Reply JsonReply(int status, const json& j) {
  Reply r;
  r.status = status;
  r.body = Dump(j);
  return r;
}

Reply ErrorReply(const Status& status) {
  Reply r;
  r.status = HttpStatus(status.code);
  r.body = ErrorBody(status.message);
  return r;
}

// A request's own header value, null when absent (names are compared
// without case).
const char* Header(MHD_Connection* connection, const char* name) {
  return MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
}

// Every value the request gives header `name` (Header gives the first).
std::vector<std::string> HeaderValues(MHD_Connection* connection,
                                      const char* name) {
  struct Query {
    const char* name;
    std::vector<std::string> values;
    bool failed = false;
  } query{name, {}};
  // Nothing may be thrown through libmicrohttpd.
  MHD_get_connection_values(
      connection, MHD_HEADER_KIND,
      [](void* cls, MHD_ValueKind, const char* key,
         const char* value) noexcept -> MHD_Result {
        auto* q = static_cast<Query*>(cls);
        if (strcasecmp(key, q->name) != 0) return MHD_YES;
        try {
          q->values.emplace_back(value != nullptr ? value : "");
        } catch (...) {
          q->failed = true;
          return MHD_NO;
        }
        return MHD_YES;
      },
      &query);
  if (query.failed) throw std::bad_alloc();
  return query.values;
}

// Why the request's body cannot be told apart from what follows it (RFC
// 9112 6.1, 6.3), or "": a header name that is malformed, a
// Transfer-Encoding other than just "chunked" (libmicrohttpd would read
// such a body to the connection's end, and never answer), or
// Content-Length headers that disagree. Behind a proxy that frames it
// otherwise, such a request could smuggle another.
std::string FramingError(MHD_Connection* connection) {
  // libmicrohttpd (0.9.75) keeps "Transfer-Encoding : chunked" as a header
  // named "Transfer-Encoding " and joins a folded line onto the name
  // ("Transfer-Encoding:\r\n chunked" becomes "Transfer-Encodingchunked"),
  // then frames the body by Content-Length, where a proxy that reads the
  // header as chunked would not. RFC 9112 (5.1, 5.2) has a server refuse
  // both: names that are not tokens, and names that start with a framing
  // header's name and go on, are. So are the framing names spelled with
  // '_' for '-', which some proxies and CGI gateways take for them.
  struct Framing {
    bool malformed = false;
    std::string name;
    std::vector<std::string> codings;  // Transfer-Encoding's values
    std::vector<std::string> lengths;  // Content-Length's
    bool failed = false;
  } framing;
  // One pass over the headers; nothing may be thrown through
  // libmicrohttpd.
  MHD_get_connection_values(
      connection, MHD_HEADER_KIND,
      [](void* cls, MHD_ValueKind, const char* key,
         const char* value) noexcept -> MHD_Result {
        auto* f = static_cast<Framing*>(cls);
        const char* at = key;
        while (*at != '\0' &&
               (std::isalnum(static_cast<unsigned char>(*at)) ||
                std::strchr("!#$%&'*+-.^_`|~", *at) != nullptr)) {
          ++at;
        }
        const bool token = at != key && *at == '\0';
        // How `key` reads against a framing header's name: 0 not at all,
        // 1 the name itself, 2 anything else that starts with it ('_' read
        // as '-'; a folded line's text follows the name it continued).
        auto against = [key](const char* name) {
          size_t i = 0;
          bool exact = true;
          for (; name[i] != '\0'; ++i) {
            const char c = key[i];
            if (c == '_' && name[i] == '-') {
              exact = false;
            } else if (std::tolower(static_cast<unsigned char>(c)) != name[i]) {
              return 0;
            }
          }
          return exact && key[i] == '\0' ? 1 : 2;
        };
        const int coding = against("transfer-encoding");
        const int length = against("content-length");
        try {
          if (token && coding == 1) {
            f->codings.emplace_back(value != nullptr ? value : "");
          } else if (token && length == 1) {
            f->lengths.emplace_back(value != nullptr ? value : "");
          } else if (!token || coding == 2 || length == 2) {
            f->malformed = true;
            f->name = key;
            return MHD_NO;
          }
        } catch (...) {
          f->failed = true;
          return MHD_NO;
        }
        return MHD_YES;
      },
      &framing);
  if (framing.failed) throw std::bad_alloc();
  if (framing.malformed) {
    return "the header named '" + LoggedText(framing.name) +
           "' is malformed: a header's name is a token followed by its "
           "colon (RFC 9112 5.1), a Transfer-Encoding or Content-Length "
           "line may not go on onto the next (5.2), and neither name is "
           "spelled with '_'";
  }
  const auto& codings = framing.codings;
  if (!codings.empty() &&
      (codings.size() > 1 || strcasecmp(codings[0].c_str(), "chunked") != 0)) {
    std::string listed;
    for (const auto& c : codings) listed += (listed.empty() ? "" : ", ") + c;
    return "Transfer-Encoding '" + LoggedText(listed) +
           "': this server takes only 'chunked' (or no Transfer-Encoding)";
  }
  const auto& lengths = framing.lengths;
  for (const auto& length : lengths) {
    if (length != lengths[0]) {
      return "Content-Length is given more than once, with different "
             "values ('" +
             LoggedText(lengths[0]) + "', '" + LoggedText(length) + "')";
    }
  }
  return "";
}

// Whether a comma-separated header value (as Connection's) holds `token`,
// compared without case.
bool HasToken(const char* value, const char* token) {
  if (value == nullptr) return false;
  const size_t length = std::strlen(token);
  for (const char* at = value; *at != '\0';) {
    while (*at == ' ' || *at == '\t' || *at == ',') ++at;
    const char* end = at;
    while (*end != '\0' && *end != ',') ++end;
    const char* last = end;
    while (last > at && (last[-1] == ' ' || last[-1] == '\t')) --last;
    if (static_cast<size_t>(last - at) == length &&
        strncasecmp(at, token, length) == 0) {
      return true;
    }
    at = end;
  }
  return false;
}

// A header's value as a byte count: -1 when absent, -2 when not a count
// (digits only, as HTTP writes lengths: no sign, no spaces).
int64_t ByteCount(const char* value) {
  if (value == nullptr) return -1;
  const char* end = value + std::strlen(value);
  int64_t parsed = 0;
  const auto [stop, error] = std::from_chars(value, end, parsed);
  if (value == end || *value < '0' || *value > '9' || stop != end ||
      error != std::errc()) {
    return -2;
  }
  return parsed;
}

// The model configuration extension's answer, in Triton's field names.
json ConfigJson(const std::string& name, const ServedConfig& c) {
  auto tensors = [](const std::vector<ServedConfig::Tensor>& list, bool input) {
    json out = json::array();
    for (const ServedConfig::Tensor& t : list) {
      json j = {{"name", t.name}, {"data_type", t.data_type}, {"dims", t.dims}};
      if (input) j["format"] = "FORMAT_NONE";
      if (!t.label_filename.empty()) j["label_filename"] = t.label_filename;
      out.push_back(j);
    }
    return out;
  };
  json group = {
      {"name", name}, {"kind", c.instance_kind}, {"count", c.instance_count}};
  if (!c.gpus.empty()) group["gpus"] = c.gpus;
  json config = {{"name", name},
                 {"platform", "paddle"},
                 {"backend", "pdlite"},
                 {"max_batch_size", c.max_batch_size},
                 {"input", tensors(c.inputs, true)},
                 {"output", tensors(c.outputs, false)},
                 {"instance_group", json::array({group})}};
  if (c.max_queue_delay_us >= 0) {
    config["dynamic_batching"] = {
        {"max_queue_delay_microseconds", c.max_queue_delay_us}};
  }
  return config;
}

json DurationJson(const DurationStat& d) {
  return {{"count", d.count}, {"ns", d.ns}};
}

// The statistics extension's answer, in Triton's field names.
json StatisticsJson(const std::vector<VersionStatistics>& all) {
  json models = json::array();
  for (const VersionStatistics& s : all) {
    json batches = json::array();
    for (const BatchStat& b : s.batches) {
      batches.push_back({{"batch_size", b.batch_size},
                         {"compute_input", DurationJson(b.compute_input)},
                         {"compute_infer", DurationJson(b.compute_infer)},
                         {"compute_output", DurationJson(b.compute_output)}});
    }
    models.push_back(
        {{"name", s.name},
         {"version", s.version},
         {"last_inference", s.last_inference_ms},
         {"inference_count", s.inference_count},
         {"execution_count", s.execution_count},
         {"inference_stats",
          {{"success", DurationJson(s.success)},
           {"fail", DurationJson(s.fail)},
           {"queue", DurationJson(s.queue)},
           {"compute_input", DurationJson(s.compute_input)},
           {"compute_infer", DurationJson(s.compute_infer)},
           {"compute_output", DurationJson(s.compute_output)},
           // No response cache here: always zero, present as Triton's are.
           {"cache_hit", DurationJson({})},
           {"cache_miss", DurationJson({})}}},
         {"batch_stats", batches}});
  }
  return {{"model_stats", models}};
}

// A path of the model repository extension: "/v2/repository/index" gives
// action "index"; "/v2/repository/models/<model>/load" (or "/unload") the
// model and "load" ("unload"); false for other paths.
bool ParseRepositoryPath(const std::string& path,
                         std::string* model,
                         std::string* action) {
  if (path == "/v2/repository/index") {
    *action = "index";
    return true;
  }
  static const std::string kPrefix = "/v2/repository/models/";
  if (path.compare(0, kPrefix.size(), kPrefix) != 0) return false;
  const size_t slash = path.find('/', kPrefix.size());
  if (slash == std::string::npos || slash == kPrefix.size()) return false;
  *model = path.substr(kPrefix.size(), slash - kPrefix.size());
  *action = path.substr(slash + 1);
  return *action == "load" || *action == "unload";
}

// The body of a repository call: empty, or a JSON object (tritonclient
// sends "" for the index and {} or {"parameters": ...} for the others).
Status ParseControlBody(const std::string& body,
                        const std::string& what,
                        json* parsed) {
  if (body.find_first_not_of(" \t\r\n") == std::string::npos) {
    *parsed = json::object();
    return Status();
  }
  std::string error;
  if (!ParseJson(body, parsed, &error) || !parsed->is_object()) {
    return Bad(what + ": the body is not a JSON object");
  }
  return Status();
}

// The logging extension: GET answers the settings; POST changes them
// (tritonclient's update_log_settings) and answers them as they are then.
Reply LoggingCall(InferenceServer* server, const std::string& body) {
  json request;
  Status status = ParseControlBody(body, "the log settings", &request);
  if (!status.ok()) return ErrorReply(status);
  std::vector<LogSetting> changes;
  for (auto& [key, value] : request.items()) {
    LogSetting s;
    s.key = key;
    if (value.is_boolean()) {
      s.kind = LogSetting::Kind::kBool;
      s.flag = value.get<bool>();
    } else if (value.is_number_unsigned()) {
      s.kind = LogSetting::Kind::kUint;
      s.number = value.get<uint64_t>();
    } else if (value.is_string()) {
      s.kind = LogSetting::Kind::kString;
      s.text = value.get<std::string>();
    }
    changes.push_back(std::move(s));
  }
  status = server->log_settings().Update(changes);
  if (!status.ok()) return ErrorReply(status);
  json settings = json::object();
  for (const LogSetting& s : server->log_settings().Current()) {
    if (s.kind == LogSetting::Kind::kBool) {
      settings[s.key] = s.flag;
    } else if (s.kind == LogSetting::Kind::kUint) {
      settings[s.key] = s.number;
    } else {
      settings[s.key] = s.text;
    }
  }
  return JsonReply(200, settings);
}

// Base64 (RFC 4648, padded, as tritonclient sends a load's files) to
// bytes, with GnuTLS's decoder (linked for TLS already).
bool DecodeBase64(const std::string& text, std::string* bytes) {
  if (text.size() > std::numeric_limits<unsigned int>::max()) return false;
  const gnutls_datum_t in = {
      reinterpret_cast<unsigned char*>(const_cast<char*>(text.data())),
      static_cast<unsigned int>(text.size())};
  gnutls_datum_t out = {nullptr, 0};
  if (gnutls_base64_decode2(&in, &out) != 0) return false;
  bytes->assign(reinterpret_cast<const char*>(out.data), out.size);
  gnutls_free(out.data);
  return true;
}

// Answers the model repository extension's calls.
Reply RepositoryCall(InferenceServer* server,
                     const std::string& model,
                     const std::string& action,
                     const std::string& body) {
  // Refused before the body is parsed: with loading off, a load's files
  // (up to --max-body-mb of base64) were decoded only to be refused.
  if (action != "index") {
    const Status allowed = server->ModelControlAllowed(model);
    if (!allowed.ok()) return ErrorReply(allowed);
  }
  json request;
  const std::string what =
      action == "index" ? "the repository index" : "model '" + model + "'";
  Status status = ParseControlBody(body, what, &request);
  if (!status.ok()) return ErrorReply(status);
  if (action == "index") {
    bool ready_only = false;
    if (request.contains("ready")) {
      if (!request["ready"].is_boolean()) {
        return ErrorReply(Bad(what + ": \"ready\" must be true or false"));
      }
      ready_only = request["ready"].get<bool>();
    }
    json index = json::array();
    for (const RepositoryEntry& e : server->Index(ready_only)) {
      json entry = {{"name", e.name}};
      if (!e.version.empty()) entry["version"] = e.version;
      if (!e.state.empty()) entry["state"] = e.state;
      if (!e.reason.empty()) entry["reason"] = e.reason;
      index.push_back(entry);
    }
    return JsonReply(200, index);
  }
  std::vector<RepositoryParameter> parameters;
  if (request.contains("parameters")) {
    const json& given = request["parameters"];
    if (!given.is_object()) {
      return ErrorReply(Bad(what + ": \"parameters\" must be an object"));
    }
    for (auto& [key, value] : given.items()) {
      RepositoryParameter p;
      p.key = key;
      if (value.is_boolean()) {
        p.kind = RepositoryParameter::Kind::kBool;
      } else if (value.is_string() && key.rfind("file:", 0) == 0) {
        // A file sent with a load: its bytes, in base64.
        if (!DecodeBase64(value.get_ref<const std::string&>(), &p.text)) {
          return ErrorReply(
              Bad(what + ": \"" + key + "\" is not base64 (RFC 4648, padded)"));
        }
        p.kind = RepositoryParameter::Kind::kBytes;
      } else if (value.is_string()) {
        p.kind = RepositoryParameter::Kind::kString;
        p.text = value.get<std::string>();
      }
      parameters.push_back(std::move(p));
    }
    // The parsed body, base64 and all, is no longer needed.
    request = json();
  }
  std::string config;
  ModelFiles files;
  status = CheckRepositoryParameters(model, action == "load",
                                     std::move(parameters), &config, &files);
  if (!status.ok()) return ErrorReply(status);
  status = action == "load" ? server->Load(model, config, files)
                            : server->Unload(model);
  if (!status.ok()) return ErrorReply(status);
  return JsonReply(200, json::object());
}

// A path of the system shared-memory extension:
// "/v2/systemsharedmemory[/region/<name>]/<action>", the action "status",
// "register" or "unregister"; false for other paths.
bool ParseSharedMemoryPath(const std::string& path,
                           std::string* region,
                           std::string* action) {
  static const std::string kPrefix = "/v2/systemsharedmemory/";
  if (path.compare(0, kPrefix.size(), kPrefix) != 0) return false;
  std::string rest = path.substr(kPrefix.size());
  static const std::string kRegion = "region/";
  if (rest.compare(0, kRegion.size(), kRegion) == 0) {
    const size_t slash = rest.rfind('/');
    if (slash <= kRegion.size()) return false;
    *region = rest.substr(kRegion.size(), slash - kRegion.size());
    rest = rest.substr(slash + 1);
  }
  *action = rest;
  if (rest == "register") return !region->empty();
  return rest == "status" || rest == "unregister";
}

// Answers the system shared-memory extension's calls.
Reply SharedMemoryCall(InferenceServer* server,
                       const std::string& region,
                       const std::string& action,
                       const std::string& body) {
  SharedMemoryRegistry& registry = server->shared_memory();
  if (action == "status") {
    std::vector<SharedMemoryRegionInfo> regions;
    Status status = registry.Describe(region, &regions);
    if (!status.ok()) return ErrorReply(status);
    json out = json::array();
    for (const SharedMemoryRegionInfo& r : regions) {
      out.push_back({{"name", r.name},
                     {"key", r.key},
                     {"offset", r.offset},
                     {"byte_size", r.byte_size}});
    }
    return JsonReply(200, out);
  }
  if (action == "unregister") {
    Status status = registry.Unregister(region);
    if (!status.ok()) return ErrorReply(status);
    return JsonReply(200, json::object());
  }
  const std::string what = "shared-memory region '" + region + "'";
  json request;
  Status status = ParseControlBody(body, what, &request);
  if (!status.ok()) return ErrorReply(status);
  auto count = [&](const char* key, bool required, uint64_t* out) {
    if (!request.contains(key)) {
      return required ? Bad(what + ": the body needs \"" + key + "\"")
                      : Status();
    }
    const json& v = request[key];
    if (!v.is_number_unsigned()) {
      return Bad(what + ": \"" + key + "\" must be an integer >= 0");
    }
    *out = v.get<uint64_t>();
    return Status();
  };
  if (!request.contains("key") || !request["key"].is_string()) {
    return ErrorReply(Bad(what + ": the body needs \"key\", a string: the "
                                 "shared-memory object's name"));
  }
  uint64_t offset = 0, byte_size = 0;
  status = count("offset", false, &offset);
  if (status.ok()) status = count("byte_size", true, &byte_size);
  if (status.ok()) {
    status = registry.Register(region, request["key"].get<std::string>(),
                               offset, byte_size);
  }
  if (!status.ok()) return ErrorReply(status);
  return JsonReply(200, json::object());
}

}  // namespace

// A connection's buffer for request bodies, reused by its next requests
// (a string per request grew by doubling each time; under load the heap
// crept up as connections came and went). Past kKeptBodyBytes it is not
// kept: with up to --http-threads connections (1024), what they keep is
// bounded at 256 MB.
struct HttpFrontend::ConnectionState {
  static constexpr size_t kKeptBodyBytes = size_t{256} << 10;
  std::string body;
  // With --tls-client-ca: whether the client's certificate was checked
  // (once a connection) and whether it passed.
  bool client_checked = false;
  bool client_trusted = false;
  // For CloseLateConnections: the socket and whether it was shut
  // down for being late (under watched_mu_); and, set by the connection's
  // thread without a lock on each request, whether a request's headers
  // are in and it is not yet answered, and since when (steady clock
  // ticks) the connection has waited for headers otherwise.
  int fd = -1;
  bool shut = false;
  std::atomic<bool> in_request{false};
  std::atomic<Clock::rep> waiting_since{
      Clock::now().time_since_epoch().count()};
  // When the answer to the request in progress was handed to
  // libmicrohttpd to write (steady clock ticks); 0 until then. For
  // CloseLateConnections, while every connection is taken.
  std::atomic<Clock::rep> answer_queued{0};
};

// One request, from its headers to its answer's last byte.
struct HttpFrontend::Exchange {
  Clock::time_point started = Clock::now();
  ConnectionState* state = nullptr;  // its connection's
  std::string method;
  std::string path;
  std::string* body = nullptr;  // its connection's buffer
  // Set when the request is refused before its body is read (over
  // --max-body-mb, a restricted API, an untrusted client): the body is read
  // to the end and dropped, then this is the answer.
  std::unique_ptr<Reply> refusal;
  // The answer says "Connection: close" (a client refused for who it is).
  bool close_after = false;
  // HTTP/1.1 without "Connection: close": the connection may carry the
  // client's next request (what --http-spin-us waits for).
  bool keep_alive = false;
  int status = 0;
  size_t in_bytes = 0;
  size_t out_bytes = 0;
  // The coding the client accepts its answer in (Accept-Encoding).
  BodyCoding answer_coding = BodyCoding::kIdentity;
  // Its share of the budget of bodies being received, until answered.
  std::vector<ByteBudget::Lease> body_leases;
  size_t body_held = 0;
  size_t stated_length = 0;  // Content-Length; 0 when none
  // A decompressed body's share of the budget for those, until answered.
  std::vector<ByteBudget::Lease> inflated_leases;
  // The body's bytes since window_start (Callbacks::TooSlow).
  Clock::time_point window_start = started;
  size_t window_bytes = 0;
};

// libmicrohttpd's callbacks, with the frontend as their closure.
struct HttpFrontend::Callbacks {
  // What is read and dropped of a body over the limit, beyond twice it.
  static constexpr size_t kDropBytes = size_t{64} << 20;
  // The budget of bodies being received is taken in steps of this.
  static constexpr size_t kBodyStep = size_t{64} << 10;
  // The slowest a body may arrive, over each window (Apache's
  // mod_reqtimeout takes the same rate by default).
  static constexpr int kMinBodyBytesPerSecond = 500;
  static constexpr std::chrono::seconds kBodyRateWindow{10};

  // libmicrohttpd's messages (with TLS on): why it refused a certificate
  // or key, all of them; then a handshake that failed, one in 100, so
  // that clients cannot fill the log (a plain HTTP client on the TLS port
  // is one message each).
  static void Log(void* cls, const char* format, va_list args) {
    char line[512];
    std::vsnprintf(line, sizeof line, format, args);
    // Without a std::string: nothing may be thrown into libmicrohttpd.
    size_t length = std::strlen(line);
    while (length > 0 &&
           (line[length - 1] == '\n' || line[length - 1] == '\r')) {
      line[--length] = '\0';
    }
    if (!static_cast<HttpFrontend*>(cls)->started_) {
      LOG(ERROR) << "libmicrohttpd: " << line;
      return;
    }
    LOG_EVERY_N(WARNING, 100)
        << "libmicrohttpd: " << line << " (one in 100 of these is logged)";
  }

  // Refuses a request whose headers are in. A client waiting for "100
  // Continue", or sending no body, is answered at once (the connection
  // closes after the answer: libmicrohttpd reads no body after an early
  // answer); the others' body is read to the end and dropped first, so that
  // they see the answer rather than a connection reset while they send.
  static MHD_Result Refuse(HttpFrontend* self,
                           MHD_Connection* connection,
                           Exchange* exchange,
                           Reply reply) {
    const char* expect = Header(connection, MHD_HTTP_HEADER_EXPECT);
    const char* length = Header(connection, "Content-Length");
    const bool body_follows =
        !(expect != nullptr && strcasecmp(expect, "100-continue") == 0) &&
        (Header(connection, MHD_HTTP_HEADER_TRANSFER_ENCODING) != nullptr ||
         (length != nullptr && ByteCount(length) != 0));
    if (!body_follows) {
      exchange->keep_alive = false;
      return Send(self, connection, exchange, std::move(reply));
    }
    // Refused for who the client is, not for its body: it closes too.
    if (reply.status == 403) {
      exchange->keep_alive = false;
      exchange->close_after = true;
    }
    exchange->refusal = std::make_unique<Reply>(std::move(reply));
    return MHD_YES;
  }

  // Nothing may be thrown into libmicrohttpd, a C library (it would end
  // the process): what AccessOrThrow throws (memory running out) ends the
  // connection; Completed then frees the request.
  static MHD_Result Access(void* cls,
                           MHD_Connection* connection,
                           const char* url,
                           const char* method,
                           const char* version,
                           const char* upload_data,
                           size_t* upload_size,
                           void** request_context) {
    try {
      return AccessOrThrow(cls, connection, url, method, version, upload_data,
                           upload_size, request_context);
    } catch (const std::exception& e) {
      LOG_EVERY_N(WARNING, 100)
          << "an HTTP request failed (" << e.what()
          << "); its connection is closed (one in 100 of these is logged)";
      return MHD_NO;
    }
  }

  static MHD_Result AccessOrThrow(void* cls,
                                  MHD_Connection* connection,
                                  const char* url,
                                  const char* method,
                                  const char* version,
                                  const char* upload_data,
                                  size_t* upload_size,
                                  void** request_context) {
    auto* self = static_cast<HttpFrontend*>(cls);
    auto* exchange = static_cast<Exchange*>(*request_context);
    if (exchange == nullptr) {
      // The headers are in; the body (if any) comes in later calls.
      auto* state = static_cast<ConnectionState*>(
          MHD_get_connection_info(connection,
                                  MHD_CONNECTION_INFO_SOCKET_CONTEXT)
              ->socket_context);
      if (state == nullptr) return MHD_NO;  // no memory for it
      state->in_request = true;
      exchange = new Exchange;
      // From here on Completed frees it, whatever happens.
      exchange->state = state;
      exchange->body = &state->body;
      *request_context = exchange;
      self->active_requests_.fetch_add(1);
      exchange->method = method;
      exchange->path = OriginForm(url);
      exchange->keep_alive =
          strcasecmp(version, MHD_HTTP_VERSION_1_1) == 0 &&
          !HasToken(Header(connection, MHD_HTTP_HEADER_CONNECTION), "close");
      exchange->body->clear();
      exchange->answer_coding =
          AnswerCoding(Header(connection, MHD_HTTP_HEADER_ACCEPT_ENCODING));
      // A body whose end is unclear is answered at once, and the
      // connection closed: nothing after it can be trusted to be a request.
      const std::string framing = FramingError(connection);
      if (!framing.empty()) {
        exchange->keep_alive = false;
        exchange->close_after = true;
        return Send(
            self, connection, exchange,
            ErrorReply(Status::Error(StatusCode::kInvalidArgument, framing)));
      }
      if (!self->options_.tls_client_ca_pem.empty()) {
        if (!state->client_checked) {
          state->client_checked = true;
          state->client_trusted = ClientTrusted(connection);
        }
        if (!state->client_trusted) {
          Reply r;
          r.status = 403;
          r.body = ErrorBody(
              "this server takes only clients with a certificate signed by "
              "its --tls-client-ca");
          return Refuse(self, connection, exchange, std::move(r));
        }
      }
      // A restricted call without its key is refused.
      if (!self->options_.restricted.empty()) {
        const auto category = HttpApiCategory(exchange->path);
        std::string why;
        if (category &&
            !self->options_.restricted.Allows(
                *category,
                [connection](const std::string& key, std::string* value) {
                  const char* found = Header(connection, key.c_str());
                  if (found != nullptr) *value = found;
                  return found != nullptr;
                },
                &why)) {
          Reply r;
          r.status = 403;
          r.body = ErrorBody(why);
          return Refuse(self, connection, exchange, std::move(r));
        }
      }
      // With Transfer-Encoding the body is read chunked, whatever
      // Content-Length says; the connection closes after the answer, as
      // RFC 9112 asks of such a request.
      if (Header(connection, MHD_HTTP_HEADER_TRANSFER_ENCODING) != nullptr &&
          Header(connection, "Content-Length") != nullptr) {
        exchange->keep_alive = false;
        exchange->close_after = true;
      }
      const int64_t length =
          Header(connection, MHD_HTTP_HEADER_TRANSFER_ENCODING) != nullptr
              ? -1
              : ByteCount(Header(connection, "Content-Length"));
      if (length > static_cast<int64_t>(self->options_.max_body_bytes)) {
        return Refuse(self, connection, exchange, TooLarge(self));
      } else if (length > 0) {
        exchange->stated_length = static_cast<size_t>(length);
        // Room for the whole body at once, up to what a connection keeps
        // (a client's word costs nothing: more is taken as bytes arrive).
        // A fresh string when the kept one is too small: reserve() on it
        // could double it past what a connection keeps, uncharged.
        const size_t room =
            std::min(exchange->stated_length, ConnectionState::kKeptBodyBytes) +
            kBodyPaddingBytes;
        if (exchange->body->capacity() < room) Regrow(exchange->body, room);
      }
      return MHD_YES;
    }
    if (*upload_size > 0) {
      const size_t n = *upload_size;
      *upload_size = 0;
      exchange->in_bytes += n;
      if (TooSlow(exchange, n)) {
        LOG_EVERY_N(WARNING, 100)
            << "an HTTP client sent less than " << kMinBodyBytesPerSecond
            << " bytes a second of its request body for "
            << kBodyRateWindow.count()
            << " s; its connection is closed (one in 100 of these is logged)";
        return MHD_NO;
      }
      if (!exchange->refusal &&
          exchange->in_bytes > self->options_.max_body_bytes) {
        // Past the limit (a body of no stated length): the rest is read
        // and dropped, then refused.
        exchange->refusal = std::make_unique<Reply>(TooLarge(self));
        DropBody(exchange);
      }
      if (!exchange->refusal && !MakeRoom(self, exchange, n)) {
        exchange->refusal = std::make_unique<Reply>(BodiesBusy(self));
        DropBody(exchange);
      }
      if (exchange->refusal) {
        // A body past twice the limit and kDropBytes more ends the
        // connection unanswered.
        return exchange->in_bytes >
                       2 * self->options_.max_body_bytes + kDropBytes
                   ? MHD_NO
                   : MHD_YES;
      }
      exchange->body->append(upload_data, n);
      return MHD_YES;
    }
    if (exchange->refusal) {
      return Send(self, connection, exchange, std::move(*exchange->refusal));
    }
    // Whatever is thrown while answering answers this request with a 500,
    // and the server goes on.
    Reply reply;
    try {
      if (!Decompress(self, connection, exchange, &exchange->inflated_leases,
                      &reply)) {
        reply = Handle(self, connection, exchange->method, exchange->path,
                       *exchange->body);
      }
    } catch (const std::exception& e) {
      reply = ErrorReply(Status::Error(
          StatusCode::kInternal,
          std::string("the server failed to answer: ") + e.what()));
    }
    // Answered: the body's shares of the budgets go now, and a large body
    // too, not after the answer is written, which a client reading slowly
    // may hold up for long. (A kept buffer is bounded per connection.)
    if (exchange->body->capacity() > ConnectionState::kKeptBodyBytes) {
      DropBody(exchange);
    } else {
      GiveBackBudgets(exchange);
    }
    return Send(self, connection, exchange, std::move(reply));
  }

  // Frees the exchange's body and gives back its shares of the budgets.
  static void DropBody(Exchange* exchange) {
    std::string().swap(*exchange->body);
    GiveBackBudgets(exchange);
  }

  static void GiveBackBudgets(Exchange* exchange) {
    exchange->body_leases.clear();
    exchange->body_held = 0;
    exchange->inflated_leases.clear();
  }

  // A compressed body (tritonclient's request_compression_algorithm),
  // decompressed in place: under --max-body-mb (a small body may expand
  // without bound), and under the budget all decompressed bodies share,
  // whose leases go to `held`. True, with `reply` set, when it is refused.
  static bool Decompress(HttpFrontend* self,
                         MHD_Connection* connection,
                         Exchange* exchange,
                         std::vector<ByteBudget::Lease>* held,
                         Reply* reply) {
    // Every line of it, as one list (RFC 9110 5.3): two lines of gzip are
    // a body compressed twice, which is refused as "gzip, gzip" is.
    std::string encoding;
    for (const std::string& line :
         HeaderValues(connection, MHD_HTTP_HEADER_CONTENT_ENCODING)) {
      encoding += (encoding.empty() ? "" : ", ") + line;
    }
    // No body, nothing to decompress (a GET that names a coding).
    if (encoding.empty() || exchange->body->empty()) return false;
    // An infer request to a model or version not served is 404 whatever
    // its body holds, as an uncompressed one is (Handle): not decompressed.
    // Refusals of one served name the model, as its other errors do.
    std::string model, version, action, where;
    if (exchange->method == "POST" &&
        ParseModelPath(exchange->path, &model, &version, &action) &&
        action == "infer") {
      std::shared_ptr<const ModelVersion> found;
      const Status known = self->server_->Find(model, version, &found);
      if (!known.ok()) {
        *reply = ErrorReply(known);
        return true;
      }
      where = "model '" + model + "': ";
    }
    BodyCoding coding = BodyCoding::kIdentity;
    if (!ParseContentEncoding(encoding.c_str(), &coding)) {
      reply->status = 415;
      reply->body =
          ErrorBody(where + "Content-Encoding '" + LoggedText(encoding) +
                    "' is not one this server reads: gzip, "
                    "deflate or identity");
      return true;
    }
    if (coding == BodyCoding::kIdentity) return false;
    auto may_hold = [self, held](size_t bytes) {
      while (held->size() * kInflateStep < bytes) {
        ByteBudget::Lease lease = self->inflated_bodies_.TryTake(kInflateStep);
        if (!lease) return false;
        held->push_back(std::move(lease));
      }
      return true;
    };
    std::string inflated;
    bool too_large = false;
    const Status status =
        Inflate(coding, *exchange->body, self->options_.max_body_bytes,
                kBodyPaddingBytes, may_hold, &inflated, &too_large);
    if (too_large) {
      *reply = TooLarge(self);
      reply->body = ErrorBody(where + "the request body, decompressed (" +
                              std::string(CodingName(coding)) +
                              "), is over the limit of " +
                              std::to_string(self->options_.max_body_bytes) +
                              " bytes (--max-body-mb)");
      return true;
    }
    if (!status.ok()) {
      *reply = ErrorReply(Status::Error(status.code, where + status.message));
      return true;
    }
    exchange->body->swap(inflated);
    return false;
  }

  // Routes a request whose body has been read, and answers it.
  static Reply Handle(HttpFrontend* self,
                      MHD_Connection* connection,
                      const std::string& method,
                      const std::string& path,
                      const std::string& body);

  // Whether the TLS client sent a certificate that GnuTLS verifies
  // against the daemon's trust list (--tls-client-ca): libmicrohttpd asks
  // for one but does not check it.
  static bool ClientTrusted(MHD_Connection* connection) {
    const MHD_ConnectionInfo* info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    if (info == nullptr || info->tls_session == nullptr) return false;
    auto session = static_cast<gnutls_session_t>(info->tls_session);
    unsigned int count = 0;
    if (gnutls_certificate_type_get(session) != GNUTLS_CRT_X509 ||
        gnutls_certificate_get_peers(session, &count) == nullptr ||
        count == 0) {
      return false;
    }
    unsigned int status = 0;
    return gnutls_certificate_verify_peers2(session, &status) ==
               GNUTLS_E_SUCCESS &&
           status == 0;
  }

  // Makes room in the exchange's body for `n` more bytes. A body's buffer
  // grows as its bytes arrive, doubling, up to its stated length (or
  // --max-body-mb); past what a connection keeps (kKeptBodyBytes, bounded
  // by the connections) its capacity is taken from the budget of bodies
  // being received, in steps of kBodyStep, so that holding the budget
  // costs a client sending at least half of it. False when it does not
  // fit.
  static bool MakeRoom(HttpFrontend* self, Exchange* exchange, size_t n) {
    std::string* body = exchange->body;
    const size_t needed = body->size() + n + kBodyPaddingBytes;
    if (needed <= body->capacity()) return true;
    const size_t cap =
        (exchange->stated_length > 0 ? exchange->stated_length
                                     : self->options_.max_body_bytes) +
        kBodyPaddingBytes;
    const size_t want = std::max(needed, std::min(2 * body->capacity(), cap));
    if (want > ConnectionState::kKeptBodyBytes && want > exchange->body_held) {
      const size_t more =
          (want - exchange->body_held + kBodyStep - 1) / kBodyStep * kBodyStep;
      ByteBudget::Lease lease = self->received_bodies_.TryTake(more);
      if (!lease) return false;
      exchange->body_leases.push_back(std::move(lease));
      exchange->body_held += more;
    }
    Regrow(body, want);
    return true;
  }

  // Gives `body` exactly `capacity` (at least its size): a fresh string
  // reserved to it, where reserve() on the old one may double it past what
  // was asked (and charged); the copy is the one a reallocation makes.
  static void Regrow(std::string* body, size_t capacity) {
    std::string grown;
    grown.reserve(capacity);
    grown.append(*body);
    body->swap(grown);
  }

  static Reply BodiesBusy(HttpFrontend* self) {
    Reply r;
    r.status = 503;
    r.body = ErrorBody(
        "the server is receiving other requests' bodies up to its budget of " +
        std::to_string(self->received_bodies_.limit()) +
        " bytes (4 x --max-body-mb); retry");
    return r;
  }

  // Whether a body is arriving slower than kMinBodyBytesPerSecond over the
  // last kBodyRateWindow (a client trickling bytes would hold its thread
  // and memory for as long as it liked: the idle timeout restarts at every
  // byte). `n` bytes just came.
  static bool TooSlow(Exchange* exchange, size_t n) {
    const Clock::time_point now = Clock::now();
    exchange->window_bytes += n;
    if (now - exchange->window_start < kBodyRateWindow) return false;
    const auto window_s =
        std::chrono::duration_cast<std::chrono::seconds>(kBodyRateWindow)
            .count();
    if (exchange->window_bytes <
        static_cast<size_t>(kMinBodyBytesPerSecond * window_s)) {
      return true;
    }
    exchange->window_start = now;
    exchange->window_bytes = 0;
    return false;
  }

  // Checks a control call's body before it is parsed (see
  // JsonWithinShape): at most `max_bytes`, kControlDepth deep,
  // kControlValues values, and its size taken from the JSON decoding
  // budget into `lease` while the call runs (its parsed JSON, a load's
  // files included, lives as long). The refusal otherwise.
  static std::optional<Reply> RefuseControlBody(
      HttpFrontend* self,
      const std::string& body,
      size_t max_bytes,
      std::optional<ByteBudget::Lease>* lease) {
    constexpr int kControlDepth = 32;
    constexpr size_t kControlValues = 100000;
    auto too_large = [&body](size_t limit, const char* which) {
      Reply r;
      r.status = 413;
      r.body =
          ErrorBody("the body of this call is " + std::to_string(body.size()) +
                    " bytes, over the " + std::to_string(limit) + which);
      return r;
    };
    if (body.size() > max_bytes) return too_large(max_bytes, " it takes");
    if (body.size() > self->json_decoding_.limit()) {
      return too_large(self->json_decoding_.limit(),
                       " the server decodes at once (--max-json-decoding-mb)");
    }
    if (!JsonWithinShape(body, kControlDepth, kControlValues)) {
      return ErrorReply(Bad("the body of this call nests deeper than " +
                            std::to_string(kControlDepth) +
                            " or holds more than " +
                            std::to_string(kControlValues) + " values"));
    }
    lease->emplace(self->json_decoding_.TryTake(body.size()));
    if (!**lease) {
      return ErrorReply(Status::Error(
          StatusCode::kUnavailable,
          "the server is decoding other requests' JSON up to its budget of " +
              std::to_string(self->json_decoding_.limit()) +
              " bytes (--max-json-decoding-mb); retry"));
    }
    return std::nullopt;
  }

  static Reply TooLarge(HttpFrontend* self) {
    Reply r;
    r.status = 413;
    r.body = ErrorBody("the request body is over the limit of " +
                       std::to_string(self->options_.max_body_bytes) +
                       " bytes (--max-body-mb)");
    return r;
  }

  static MHD_Result Send(HttpFrontend* self,
                         MHD_Connection* connection,
                         Exchange* exchange,
                         Reply reply) {
    exchange->status = reply.status;
    // In the coding the client accepts (tritonclient's
    // response_compression_algorithm); Inference-Header-Content-Length
    // still counts the JSON before compression, as Triton's does. Errors
    // go out plain, as Triton's do: tritonclient reads an error's body
    // without decompressing it.
    const char* answer_coding = nullptr;
    if (exchange->answer_coding != BodyCoding::kIdentity &&
        reply.status / 100 == 2 && !reply.body.empty() &&
        reply.body.size() < (size_t{1} << 30)) {
      try {
        reply.body = Compress(exchange->answer_coding, reply.body);
        answer_coding = CodingName(exchange->answer_coding);
      } catch (const std::exception& e) {
        // zlib without memory: the answer goes out as it is.
        LOG_EVERY_N(WARNING, 100) << e.what();
      }
    }
    exchange->out_bytes = reply.body.size();
    // The answer's bytes are handed over, not copied.
    auto* owned = new (std::nothrow) std::string(std::move(reply.body));
    if (owned == nullptr) return MHD_NO;
    MHD_Response* response =
        MHD_create_response_from_buffer_with_free_callback_cls(
            owned->size(), owned->data(),
            [](void* cls) { delete static_cast<std::string*>(cls); }, owned);
    if (response == nullptr) {
      delete owned;
      return MHD_NO;
    }
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE,
                            reply.content_type.c_str());
    if (reply.header_length >= 0) {
      MHD_add_response_header(response, "Inference-Header-Content-Length",
                              std::to_string(reply.header_length).c_str());
    }
    if (!reply.allow.empty()) {
      MHD_add_response_header(response, MHD_HTTP_HEADER_ALLOW,
                              reply.allow.c_str());
    }
    if (answer_coding != nullptr) {
      MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_ENCODING,
                              answer_coding);
      MHD_add_response_header(response, MHD_HTTP_HEADER_VARY,
                              MHD_HTTP_HEADER_ACCEPT_ENCODING);
    }
    // Once stopping, clients are told to send nothing more on a
    // connection.
    if (self->stopping_ || exchange->close_after) {
      MHD_add_response_header(response, MHD_HTTP_HEADER_CONNECTION, "close");
    }
    if (exchange->state != nullptr) {
      exchange->state->answer_queued = Clock::now().time_since_epoch().count();
    }
    const MHD_Result queued = MHD_queue_response(
        connection, static_cast<unsigned>(reply.status), response);
    MHD_destroy_response(response);
    return queued;
  }

  static void Completed(void* cls,
                        MHD_Connection* connection,
                        void** request_context,
                        MHD_RequestTerminationCode how) {
    auto* self = static_cast<HttpFrontend*>(cls);
    auto* exchange = static_cast<Exchange*>(*request_context);
    if (exchange == nullptr) return;
    *request_context = nullptr;
    // The next request's headers are awaited from now (header_timeout_s).
    const MHD_ConnectionInfo* info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    if (info != nullptr && info->socket_context != nullptr) {
      auto* state = static_cast<ConnectionState*>(info->socket_context);
      // The times first: CloseLateConnections reads them by in_request.
      state->answer_queued = 0;
      state->waiting_since = Clock::now().time_since_epoch().count();
      state->in_request = false;
    }
    if (exchange->body != nullptr &&
        exchange->body->capacity() > ConnectionState::kKeptBodyBytes) {
      std::string().swap(*exchange->body);
    }
    if (self->server_->log_settings().LogRequests()) try {
        // One line per request, with its time from its headers' arrival.
        const double ms = std::chrono::duration<double, std::milli>(
                              Clock::now() - exchange->started)
                              .count();
        char address[INET6_ADDRSTRLEN] = "?";
        const MHD_ConnectionInfo* info = MHD_get_connection_info(
            connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        if (info != nullptr && info->client_addr != nullptr) {
          const sockaddr* a = info->client_addr;
          if (a->sa_family == AF_INET) {
            inet_ntop(AF_INET,
                      &reinterpret_cast<const sockaddr_in*>(a)->sin_addr,
                      address, sizeof(address));
          } else if (a->sa_family == AF_INET6) {
            inet_ntop(AF_INET6,
                      &reinterpret_cast<const sockaddr_in6*>(a)->sin6_addr,
                      address, sizeof(address));
          }
        }
        // Escaped: a path's "%0A" would start a forged log line.
        LOG(INFO) << address << " " << LoggedText(exchange->method) << " "
                  << LoggedText(exchange->path, 1024) << " " << exchange->status
                  << " " << exchange->in_bytes << "B in, "
                  << exchange->out_bytes << "B out, " << ms << " ms"
                  << (exchange->status != 0 &&
                              how != MHD_REQUEST_TERMINATED_COMPLETED_OK
                          ? " (the connection ended before the answer was "
                            "written)"
                          : "");
      } catch (const std::exception&) {
        // Not logged; the request is freed below all the same.
      }
    const bool keep_alive = exchange->keep_alive;
    delete exchange;
    self->active_requests_.fetch_sub(1);
    // Not after an error or a hang-up, nor on a connection that closes
    // after this answer: no request would come.
    if (how == MHD_REQUEST_TERMINATED_COMPLETED_OK && keep_alive) {
      self->SpinForNextRequest(connection);
    }
  }

  static void ConnectionEvent(void* cls,
                              MHD_Connection* connection,
                              void** socket_context,
                              MHD_ConnectionNotificationCode event) {
    auto* self = static_cast<HttpFrontend*>(cls);
    if (event == MHD_CONNECTION_NOTIFY_STARTED) {
      // Without memory for it, the connection's requests are refused
      // (Access).
      auto* state = new (std::nothrow) ConnectionState;
      *socket_context = state;
      self->open_connections_.fetch_add(1);
      const MHD_ConnectionInfo* info = MHD_get_connection_info(
          connection, MHD_CONNECTION_INFO_CONNECTION_FD);
      if (state != nullptr && info != nullptr) {
        state->fd = info->connect_fd;
        std::lock_guard<std::mutex> lock(self->watched_mu_);
        try {
          self->watched_.insert(state);
        } catch (const std::exception&) {
          // Not watched: only its idle timeout bounds its headers.
        }
      }
      return;
    }
    // Before libmicrohttpd closes the socket: its descriptor is not shut
    // down once it may be another connection's.
    auto* state = static_cast<ConnectionState*>(*socket_context);
    if (state != nullptr) {
      std::lock_guard<std::mutex> lock(self->watched_mu_);
      self->watched_.erase(state);
    }
    delete state;
    *socket_context = nullptr;
    if (self->open_connections_.fetch_sub(1) == 1) {
      std::lock_guard<std::mutex> lock(self->mu_);
      self->changed_.notify_all();
    }
  }
};

void HttpFrontend::SpinForNextRequest(MHD_Connection* connection) {
  // Only while nothing else is being served (HTTP requests being read or
  // answered, and any request in the server core, gRPC's included), and
  // one connection at a time: a spinning thread takes a core that
  // requests could use.
  auto idle = [this] {
    return active_requests_ == 0 && server_->metrics().inflight() == 0 &&
           !stopping_;
  };
  if (options_.spin_us <= 0 || !idle()) return;
  int none = 0;
  if (!spinners_.compare_exchange_strong(none, 1)) return;
  const MHD_ConnectionInfo* info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  if (info != nullptr) {
    const auto until =
        Clock::now() + std::chrono::microseconds(options_.spin_us);
    pollfd socket{info->connect_fd, POLLIN, 0};
    // poll() with no timeout returns at once: the thread stays on its
    // core until the request's first bytes (or a hang-up) are there. A
    // request already read into libmicrohttpd's (or GnuTLS's) buffer, as
    // a pipelining client's is, waits the spin out.
    int ready = 0;
    while ((ready = ::poll(&socket, 1, 0)) == 0 && idle() &&
           Clock::now() < until) {
    }
    server_->metrics().RecordSpin(ready > 0);
  }
  spinners_ = 0;
}

HttpFrontend::HttpFrontend(InferenceServer* server, HttpOptions options)
    : server_(server),
      options_(std::move(options)),
      json_decoding_(options_.max_json_decoding_bytes > 0
                         ? options_.max_json_decoding_bytes
                         : 4 * options_.max_body_bytes),
      inflated_bodies_(4 * options_.max_body_bytes),
      received_bodies_(4 * options_.max_body_bytes) {}

HttpFrontend::~HttpFrontend() {
  if (daemon_ != nullptr) MHD_stop_daemon(daemon_);
  if (quiesced_listener_ >= 0) ::close(quiesced_listener_);
}

int HttpFrontend::Bind() {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(options_.port);
  if (getaddrinfo(options_.host.c_str(), port.c_str(), &hints, &found) != 0 ||
      found == nullptr) {
    return -1;
  }
  sockaddr_storage address{};
  std::memcpy(&address, found->ai_addr, found->ai_addrlen);
  const bool ipv6 = found->ai_family == AF_INET6;
  freeaddrinfo(found);
  // A thread per connection, at most --http-threads of them (libmicrohttpd
  // closes connections past the limit at once). A request may wait in its
  // handler (for a batch, a queue, a run): connections sharing a polling
  // thread would wait behind it, and one thread accepts several
  // connections of a burst. ITC lets Stop() quiesce the daemon.
  unsigned flags = MHD_USE_THREAD_PER_CONNECTION |
                   MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC;
  if (ipv6) flags |= MHD_USE_IPv6;
  std::vector<MHD_OptionItem> items = {
      {MHD_OPTION_SOCK_ADDR, 0, &address},
      {MHD_OPTION_NOTIFY_COMPLETED,
       reinterpret_cast<intptr_t>(&Callbacks::Completed), this},
      {MHD_OPTION_NOTIFY_CONNECTION,
       reinterpret_cast<intptr_t>(&Callbacks::ConnectionEvent), this},
      // A burst of clients connecting at once must not overflow it.
      {MHD_OPTION_LISTEN_BACKLOG_SIZE, SOMAXCONN, nullptr},
      // Headers, and each read of a body (passed on as it comes): 64 KB
      // reads a 110 KB request in two.
      {MHD_OPTION_CONNECTION_MEMORY_LIMIT, kConnectionMemoryBytes, nullptr},
      // An idle kept-alive connection ends after this many seconds (which
      // also bounds how long Serve() waits for connections after Stop()).
      {MHD_OPTION_CONNECTION_TIMEOUT, kIdleTimeoutSeconds, nullptr},
  };
  items.push_back({MHD_OPTION_CONNECTION_LIMIT, options_.threads, nullptr});
  if (!options_.tls_cert_pem.empty()) {
    // GnuTLS, through libmicrohttpd; it keeps pointers to the PEM text,
    // which options_ holds as long as the daemon runs. Its reasons for
    // refusing them go to the log.
    flags |= MHD_USE_TLS | MHD_USE_ERROR_LOG;
    // First, or libmicrohttpd logs the options before it to stderr.
    items.insert(items.begin(),
                 {MHD_OPTION_EXTERNAL_LOGGER,
                  reinterpret_cast<intptr_t>(&Callbacks::Log), this});
    items.push_back({MHD_OPTION_HTTPS_MEM_CERT, 0,
                     const_cast<char*>(options_.tls_cert_pem.c_str())});
    items.push_back({MHD_OPTION_HTTPS_MEM_KEY, 0,
                     const_cast<char*>(options_.tls_key_pem.c_str())});
    if (!options_.tls_client_ca_pem.empty()) {
      // Makes GnuTLS ask clients for a certificate and trust these
      // authorities; Access checks it (ClientTrusted).
      items.push_back({MHD_OPTION_HTTPS_MEM_TRUST, 0,
                       const_cast<char*>(options_.tls_client_ca_pem.c_str())});
    }
  }
  items.push_back({MHD_OPTION_END, 0, nullptr});
  daemon_ = MHD_start_daemon(flags, static_cast<uint16_t>(options_.port),
                             nullptr, nullptr, &Callbacks::Access, this,
                             MHD_OPTION_ARRAY, items.data(), MHD_OPTION_END);
  if (daemon_ == nullptr) return -1;
  started_ = true;
  const MHD_DaemonInfo* info =
      MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
  return info != nullptr ? info->port : options_.port;
}

void HttpFrontend::Serve() {
  if (daemon_ == nullptr) return;
  std::unique_lock<std::mutex> lock(mu_);
  // Requests are answered by the daemon's threads from Bind() on; this
  // thread waits for Stop(), then for the connections taken to end: each
  // after its current request (Connection: close) or its idle timeout.
  // Once Stop() has quiesced the daemon, not merely begun to: stopping it
  // while Stop() still quiesces it would race in libmicrohttpd (ThreadSanitizer
  // saw the daemon's wake-up fd closed under the quiescing write).
  //
  // A connection whose client sends its headers slowly holds no request
  // (its bytes restart the idle timeout): once no request has been in
  // progress for kIdleTimeoutSeconds after Stop(), the daemon stops,
  // closing the connections left.
  const auto grace = std::chrono::seconds(kIdleTimeoutSeconds);
  Clock::time_point no_request_since = Clock::time_point::max();
  while (!(quiesced_ && open_connections_.load() == 0)) {
    const Clock::time_point now = Clock::now();
    if (!quiesced_ || active_requests_.load() > 0) {
      no_request_since = Clock::time_point::max();
    } else if (no_request_since == Clock::time_point::max()) {
      no_request_since = now;
    } else if (now - no_request_since >= grace) {
      LOG(WARNING) << open_connections_.load()
                   << " HTTP connection(s) still open with no request in "
                      "progress for "
                   << kIdleTimeoutSeconds
                   << " s since the server stopped accepting (clients "
                      "sending their headers slowly): closing them";
      break;
    }
    CloseLateConnections();
    changed_.wait_for(lock, std::chrono::milliseconds(100));
  }
  lock.unlock();
  MHD_stop_daemon(daemon_);
  daemon_ = nullptr;
  if (quiesced_listener_ >= 0) ::close(quiesced_listener_);
  quiesced_listener_ = -1;
}

void HttpFrontend::CloseLateConnections() {
  const Clock::time_point now = Clock::now();
  const Clock::rep late_from =
      (now - std::chrono::seconds(options_.header_timeout_s))
          .time_since_epoch()
          .count();
  // Every connection taken, no other client can connect: those whose
  // answer has gone unread for kUnreadAnswerSeconds go, so that a client
  // reading slowly (each byte restarting the idle timeout) or a crowd of
  // them cannot hold every connection. A slow reader is cut off only when
  // its connection is wanted.
  const bool full = open_connections_.load() >= options_.threads;
  const Clock::rep unread_from =
      (now - std::chrono::seconds(kUnreadAnswerSeconds))
          .time_since_epoch()
          .count();
  int late_headers = 0;
  int unread_answers = 0;
  {
    std::lock_guard<std::mutex> lock(watched_mu_);
    for (ConnectionState* state : watched_) {
      if (state->shut || state->fd < 0) continue;
      if (state->in_request) {
        const Clock::rep queued = state->answer_queued;
        if (!full || queued == 0 || queued > unread_from) continue;
        ++unread_answers;
      } else {
        if (options_.header_timeout_s <= 0 ||
            state->waiting_since > late_from) {
          continue;
        }
        ++late_headers;
      }
      // The connection's thread sees its socket end and closes it.
      ::shutdown(state->fd, SHUT_RDWR);
      state->shut = true;
    }
  }
  if (late_headers > 0) {
    LOG_EVERY_N(WARNING, 100)
        << late_headers << " HTTP connection(s) sent no whole request headers "
        << options_.header_timeout_s
        << " s after connecting or after their last answer "
           "(--http-header-timeout-secs): closed (one in 100 of these is "
           "logged)";
  }
  if (unread_answers > 0) {
    LOG_EVERY_N(WARNING, 100)
        << "every one of the " << options_.threads
        << " HTTP connections (--http-threads) is taken: closed "
        << unread_answers << " whose answer went unread for "
        << kUnreadAnswerSeconds
        << " s (clients that read slowly or not at all; one in 100 of "
           "these is logged)";
  }
}

void HttpFrontend::Stop() {
  if (stopping_.exchange(true)) {
    std::lock_guard<std::mutex> lock(mu_);
    changed_.notify_all();
    return;
  }
  // No new connections: the listening socket is shut down; those taken
  // are served (their answers say Connection: close). Shut down, not
  // closed: the descriptor stays libmicrohttpd's until the daemon stops
  // (closed, its number could go to another file while the daemon's thread
  // is about to accept on it).
  MHD_socket listener = MHD_INVALID_SOCKET;
  if (daemon_ != nullptr) {
    listener = MHD_quiesce_daemon(daemon_);
    if (listener != MHD_INVALID_SOCKET) ::shutdown(listener, SHUT_RDWR);
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (listener != MHD_INVALID_SOCKET) quiesced_listener_ = listener;
  quiesced_ = true;
  changed_.notify_all();
}

Reply HttpFrontend::Callbacks::Handle(HttpFrontend* self,
                                      MHD_Connection* connection,
                                      const std::string& method,
                                      const std::string& path,
                                      const std::string& body) {
  InferenceServer* server = self->server_;
  const bool get = method == "GET" || method == "HEAD";
  const bool post = method == "POST";
  if (get && path == "/v2/health/live") {
    return JsonReply(server->Live() ? 200 : 400, json::object());
  }
  if (get && path == "/v2/health/ready") {
    if (server->Ready()) return JsonReply(200, json::object());
    if (server->ShuttingDown()) {
      return JsonReply(400, {{"error", "the server is shutting down"}});
    }
    std::string why;
    int not_ready = 0;
    for (auto& name : server->ModelNames()) {
      for (auto& v : server->Versions(name)) {
        std::shared_ptr<const ModelVersion> m;
        server->Find(name, v, &m);
        if (m && !m->ready()) {
          ++not_ready;
          why += (why.empty() ? "" : "; ") +
                 ("model '" + name + "' version " + v + ": " + m->error());
        }
      }
    }
    // Every model ready by now (a load ended between the two looks).
    if (not_ready == 0) return JsonReply(200, json::object());
    // Where the calls that name models are restricted, not named here.
    if (!server->names_models_in_errors()) {
      why = std::to_string(not_ready) + " model version(s) not ready";
    }
    return JsonReply(400, {{"error", "not every model is ready: " + why}});
  }
  // Control calls' bodies are small, but a load's, which may carry the
  // model's files.
  constexpr size_t kControlBodyBytes = 64 << 10;
  std::optional<ByteBudget::Lease> control_lease;
  if ((get || post) && path == "/v2/logging") {
    if (!post) return LoggingCall(server, std::string());
    if (auto refused =
            RefuseControlBody(self, body, kControlBodyBytes, &control_lease)) {
      return *refused;
    }
    return LoggingCall(server, body);
  }
  if (get && path == "/v2") {
    return JsonReply(200, {{"name", kServerName},
                           {"version", kServerVersion},
                           {"extensions", server->Extensions()}});
  }
  if (get && path == "/metrics") {
    Reply r;
    r.content_type = "text/plain; version=0.0.4; charset=utf-8";
    r.body = server->RenderMetrics();
    return r;
  }
  std::string model, version, action;
  if (get && path == "/v2/models/stats") {
    std::vector<VersionStatistics> all;
    server->Statistics("", "", &all);
    return JsonReply(200, StatisticsJson(all));
  }
  if (post && ParseRepositoryPath(path, &model, &action)) {
    if (auto refused =
            RefuseControlBody(self, body,
                              action == "load" ? self->options_.max_body_bytes
                                               : kControlBodyBytes,
                              &control_lease)) {
      return *refused;
    }
    return RepositoryCall(server, model, action, body);
  }
  std::string region;
  if (ParseSharedMemoryPath(path, &region, &action) &&
      (action == "status" ? get : post)) {
    if (auto refused =
            RefuseControlBody(self, body, kControlBodyBytes, &control_lease)) {
      return *refused;
    }
    return SharedMemoryCall(server, region, action, body);
  }
  const bool model_path = ParseModelPath(path, &model, &version, &action);
  if (model_path && get && action == "stats") {
    std::vector<VersionStatistics> all;
    Status status = server->Statistics(model, version, &all);
    if (!status.ok()) return ErrorReply(status);
    return JsonReply(200, StatisticsJson(all));
  }
  if (model_path && get &&
      (action.empty() || action == "ready" || action == "config")) {
    std::shared_ptr<const ModelVersion> m;
    Status status = server->Find(model, version, &m);
    if (status.ok() && !m->ready()) {
      status = Status::Error(StatusCode::kInvalidArgument,
                             "model '" + m->name() + "' version " +
                                 m->version() + " is not ready: " + m->error());
    }
    if (!status.ok()) return ErrorReply(status);
    if (action == "ready") return JsonReply(200, json::object());
    if (action == "config") {
      return JsonReply(200, ConfigJson(m->name(), m->Served()));
    }
    json inputs = json::array(), outputs = json::array();
    for (auto& i : m->inputs()) {
      json t = TensorMetadata(i);
      if (i.lod_level > 0) t["parameters"] = {{"lod_level", i.lod_level}};
      inputs.push_back(t);
    }
    for (auto& o : m->outputs()) outputs.push_back(TensorMetadata(o));
    return JsonReply(200, {{"name", m->name()},
                           {"versions", server->Versions(m->name())},
                           {"platform", "paddle"},
                           {"inputs", inputs},
                           {"outputs", outputs}});
  }
  if (model_path && post && action == "infer") {
    // An unknown model or version is a 404 whatever the body holds, and
    // its body is not decoded. The request runs on the version found.
    std::shared_ptr<ModelVersion> found;
    Status known = server->FindToRun(model, version, &found);
    if (!known.ok()) return ErrorReply(known);
    InferRequest request;
    request.model = model;
    request.version = version;
    WireOptions options;
    const char* header_value =
        Header(connection, "Inference-Header-Content-Length");
    const int64_t json_length = ByteCount(header_value);
    if (json_length == -2) {
      return ErrorReply(
          Bad("model '" + model + "': Inference-Header-Content-Length '" +
              LoggedText(header_value) + "' is not a byte count"));
    }
    // The decoding's share of the JSON budget, given back once decoded. A
    // length past the body is the decoder's to refuse (400), not a claim
    // on the budget.
    const size_t json_bytes =
        json_length < 0
            ? body.size()
            : std::min(static_cast<size_t>(json_length), body.size());
    const size_t budget = self->json_decoding_.limit();
    if (json_bytes > budget) {
      Reply r = ErrorReply(Status::Error(
          StatusCode::kInvalidArgument,
          "model '" + model + "': the request's JSON is " +
              std::to_string(json_bytes) + " bytes, over the " +
              std::to_string(budget) +
              " the server decodes at once (--max-json-decoding-mb); send "
              "the tensors as binary data"));
      r.status = 413;
      return r;
    }
    Status status;
    {
      ByteBudget::Lease decoding = self->json_decoding_.TryTake(json_bytes);
      if (!decoding) {
        return ErrorReply(Status::Error(
            StatusCode::kUnavailable,
            "model '" + model +
                "': the server is decoding other requests' JSON up to its "
                "budget of " +
                std::to_string(budget) +
                " bytes (--max-json-decoding-mb); retry, or send the "
                "tensors as binary data"));
      }
      status = DecodeInferRequest(body, json_length, &request, &options);
    }
    if (!status.ok()) {
      status.message = "model '" + request.model + "': " + status.message;
      return ErrorReply(status);
    }
    const std::string id = request.id;
    request.abandoned = ClientGone(connection);
    InferResponse response =
        server->Infer(std::move(request), std::move(found));
    if (!response.status.ok()) return ErrorReply(response.status);
    Reply r;
    // Bounded as gRPC's answers are: JSON takes up to ten times the
    // tensors' bytes, and a slow reader holds the answer while it reads.
    const size_t max_bytes = self->options_.max_body_bytes;
    if (!EncodeInferResponseWithin(response, id, options, max_bytes, &r.body,
                                   &r.header_length)) {
      return ErrorReply(Status::Error(
          StatusCode::kResourceExhausted,
          "model '" + response.model + "': the answer is more than " +
              std::to_string(max_bytes) +
              " bytes, more than a body may hold (--max-body-mb); ask for "
              "fewer outputs or rows, or for binary outputs"));
    }
    if (r.header_length >= 0) r.content_type = "application/octet-stream";
    return r;
  }
  // An endpoint's path with another method: 405, saying which it takes.
  std::string allow;
  if (path == "/v2/health/live" || path == "/v2/health/ready" ||
      path == "/v2" || path == "/metrics" || path == "/v2/models/stats" ||
      (model_path && action != "infer")) {
    allow = "GET, HEAD";
  } else if (path == "/v2/logging") {
    allow = "GET, HEAD, POST";
  } else if (ParseRepositoryPath(path, &model, &action) ||
             (model_path && action == "infer")) {
    allow = "POST";
  } else if (ParseSharedMemoryPath(path, &region, &action)) {
    allow = action == "status" ? "GET, HEAD" : "POST";
  }
  if (allow.empty()) {
    return ErrorReply(Status::Error(StatusCode::kNotFound,
                                    "no endpoint " + method + " " + path));
  }
  Reply r;
  r.status = 405;
  r.allow = allow;
  r.body = ErrorBody("method " + method + " is not one " + path +
                     " takes: " + allow);
  return r;
}

}  // namespace serve
}  // namespace pdlite
