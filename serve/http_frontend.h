// The HTTP/REST front end of `pdlite serve`: the Open Inference Protocol
// (KServe v2) endpoints with the binary tensor data extension, and
// Prometheus metrics, over libmicrohttpd. Translates between the wire format
// and InferenceServer's protocol-neutral calls.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_set>

#include "serve/byte_budget.h"
#include "serve/http_codec.h"
#include "serve/restricted_api.h"
#include "serve/server.h"
#include "serve/types.h"

struct MHD_Connection;
struct MHD_Daemon;

namespace pdlite {
namespace serve {

/// The HTTP status for a core status.
int HttpStatus(StatusCode code);

struct HttpOptions {
  std::string host = "0.0.0.0";
  int port = 8000;  // 0: any free port (Bind() returns it)
  // Connections served at once, a thread each; more are refused.
  int threads = 1024;
  size_t max_body_bytes = size_t{64} << 20;
  // JSON of infer requests decoded at once, all connections together: a
  // JSON document takes up to about 17 times its size while decoded (a
  // tape and an index per value), so this bounds that memory. A request
  // whose JSON does not fit beside the others' is refused (503); one
  // larger than the whole budget, always (413). 0: 4 x max_body_bytes.
  size_t max_json_decoding_bytes = 0;
  // After answering, a connection's thread waits this long for its next
  // request spinning on the socket rather than sleeping, while no other
  // request is being served (one connection at a time). A thread that
  // sleeps costs a wake-up, and the next run starts on a cold core. 0:
  // never; it costs up to this much CPU time per request.
  int spin_us = 0;
  // A request's headers must be in within this many seconds of the
  // connection's start or its previous answer (nginx's
  // client_header_timeout), else the connection is closed: each byte
  // restarts the idle timeout, so a client sending a byte every few
  // seconds would hold its connection's thread for good. 0: no limit.
  int header_timeout_s = 30;
  // PEM text of the server's certificate (chain) and private key: HTTPS
  // when both are set.
  std::string tls_cert_pem;
  std::string tls_key_pem;
  // PEM text of the certificate authorities whose client certificates are
  // taken (mutual TLS): when set, a client without one signed by them is
  // refused.
  std::string tls_client_ca_pem;
  // Calls of these categories need a header with a given value
  // (--http-restricted-api / --grpc-restricted-protocol).
  ApiRestrictions restricted;
};

class HttpFrontend {
 public:
  HttpFrontend(InferenceServer* server, HttpOptions options);
  ~HttpFrontend();

  /// Binds the listening socket and starts answering on the daemon's
  /// threads; returns the port, -1 on failure.
  int Bind();
  /// Returns after Stop(), once every connection taken has ended (each
  /// after its current request, or after its idle timeout; once no request
  /// has been in progress for 5 s after Stop(), those left are closed).
  void Serve();
  /// Stops accepting; safe from another thread, and to call again.
  /// Connections already accepted are served; their responses say
  /// "Connection: close".
  void Stop();

  /// HTTP requests whose headers are in and that are not yet answered
  /// (their bodies arriving, waiting for a model, or being sent).
  int active_requests() const { return active_requests_.load(); }

 private:
  struct ConnectionState;
  struct Exchange;
  struct Callbacks;
  // Per connection: its headers and one read of a body.
  static constexpr int kConnectionMemoryBytes = 64 << 10;
  static constexpr int kIdleTimeoutSeconds = 5;
  // While every connection is taken, one whose answer has waited this long
  // to be read is closed (CloseLateConnections).
  static constexpr int kUnreadAnswerSeconds = 5;

  InferenceServer* server_;
  HttpOptions options_;
  MHD_Daemon* daemon_ = nullptr;  // from Bind() to the end of Serve()
  // See HttpOptions::spin_us; called by a connection's thread once it
  // has answered.
  void SpinForNextRequest(MHD_Connection* connection);

  std::atomic<bool> started_{false};     // the daemon runs (for its log)
  std::atomic<int> active_requests_{0};  // headers in, not yet completed
  std::atomic<int> spinners_{0};
  std::atomic<bool> stopping_{false};
  ByteBudget json_decoding_;  // --max-json-decoding-mb
  // Decompressed request bodies held at once, all requests together: 4 x
  // --max-body-mb (each body at most --max-body-mb).
  ByteBudget inflated_bodies_;
  // Request bodies' buffers past the 1 MB a connection keeps, held until
  // answered, all requests together: 4 x --max-body-mb, taken as the
  // buffers grow with the bytes that arrive.
  ByteBudget received_bodies_;
  std::atomic<int> open_connections_{0};
  // The connections open (their states), for the header deadline and
  // unread answers, which Serve() enforces (CloseLateConnections); under
  // watched_mu_, as are the states' deadline fields.
  std::mutex watched_mu_;
  std::unordered_set<ConnectionState*> watched_;
  void CloseLateConnections();
  // Serve() waits on it for Stop() and for the last connection to end.
  std::mutex mu_;
  std::condition_variable changed_;
  bool quiesced_ = false;  // Stop() has quiesced the daemon; under mu_
  // The listening socket, once quiesced: shut down by Stop(), closed after
  // the daemon stops (libmicrohttpd may still be about to accept on it).
  int quiesced_listener_ = -1;
};

}  // namespace serve
}  // namespace pdlite
