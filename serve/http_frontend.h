// The HTTP/REST front end of `pdlite serve`: the Open Inference Protocol
// (KServe v2) endpoints with the binary tensor data extension, and
// Prometheus metrics, over cpp-httplib. Translates between the wire format
// and InferenceServer's protocol-neutral calls.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "serve/server.h"
#include "serve/types.h"

namespace httplib {
class Server;
}

namespace pdlite {
namespace serve {

/// The wire options of an infer request that the core does not need.
struct WireOptions {
  bool binary_default = false;                // binary_data_output
  std::map<std::string, bool> binary_output;  // per output: binary_data
};

/// Decodes an infer request body. `json_length` is the
/// Inference-Header-Content-Length value, or -1 when absent (all JSON).
/// Sets model and version of `request` from nothing: the caller does.
Status DecodeInferRequest(const std::string& body,
                          int64_t json_length,
                          InferRequest* request,
                          WireOptions* options);

/// Encodes a successful response; `json_length` gets the JSON header's
/// size when some output is binary, else -1.
std::string EncodeInferResponse(const InferResponse& response,
                                const std::string& id,
                                const WireOptions& options,
                                int64_t* json_length);

/// The HTTP status for a core status.
int HttpStatus(StatusCode code);

struct HttpOptions {
  std::string host = "0.0.0.0";
  int port = 8000;  // 0: any free port (Bind() returns it)
  int threads = 32;
  size_t max_body_bytes = size_t{64} << 20;
  bool verbose = false;
};

class HttpFrontend {
 public:
  HttpFrontend(InferenceServer* server, HttpOptions options);
  ~HttpFrontend();

  /// Binds the listening socket; returns the port, -1 on failure.
  int Bind();
  /// Answers requests until Stop(); returns once every accepted request
  /// has been answered.
  void Serve();
  /// Stops accepting; safe from another thread, and to call again.
  /// Connections already accepted (those still waiting for a thread too)
  /// are served; their responses say "Connection: close".
  void Stop();

 private:
  void Route();

  InferenceServer* server_;
  HttpOptions options_;
  std::unique_ptr<httplib::Server> http_;
  int listen_fd_ = -1;  // set by Bind()
  std::atomic<bool> stopping_{false};
  std::atomic<bool> listener_shut_{false};
  // Accepted connections waiting for a handler thread: while there are
  // any, responses say "Connection: close", so that kept-alive clients
  // take turns with them instead of holding every thread for good.
  std::atomic<size_t> waiting_connections_{0};
};

}  // namespace serve
}  // namespace pdlite
