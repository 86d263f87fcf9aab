// pdlite_server: serves a model repository over the Open Inference
// Protocol (KServe v2), HTTP/REST and gRPC. `pdlite serve ARGS...` runs it.
#include <glog/logging.h>
#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <future>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>

#include "serve/grpc_frontend.h"
#include "serve/http_frontend.h"
#include "serve/server.h"

namespace {

int Usage(const std::string& problem) {
  if (!problem.empty()) std::cerr << "pdlite serve: " << problem << "\n\n";
  std::cerr << R"(usage: pdlite serve --model-repository DIR [--http-port 8000]
                    [--grpc-port 8001] [--host 0.0.0.0] [--http-threads 1024]
                    [--grpc-threads 256] [--max-body-mb 64]
                    [--max-json-decoding-mb 4 x max-body-mb]
                    [--model-control-mode none|explicit|poll]
                    [--repository-poll-secs 15]
                    [--shared-memory none|system]
                    [--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]]
                    [--http-spin-us 0] [--http-header-timeout-secs 30]
                    [--exit-timeout-secs 30]
                    [--http-restricted-api CATEGORIES:KEY=VALUE]...
                    [--grpc-restricted-protocol CATEGORIES:KEY=VALUE]...
                    [--verbose]

DIR/<model>/<version>/ holds a model's files (as `pdlite run --model` takes
them); DIR/<model>/config.json its settings (docs/serving.md). A port of 0
takes a free one; --grpc-port -1 serves no gRPC. The lines "listening on
HOST:PORT" (HTTP) and "grpc listening on HOST:PORT" on stdout say where.
--max-body-mb bounds HTTP bodies and answers, and gRPC messages, alike.
--max-json-decoding-mb bounds the JSON of HTTP infer requests decoded at
once (a JSON document takes up to about 17 times its size while decoded).
--model-control-mode explicit lets clients load, reload and unload models
(the protocol's model repository extension); every model still loads at
start. With none (the default) those calls are refused. With poll, the
server looks at the repository every --repository-poll-secs seconds and
loads the model folders added or changed since, and unloads those removed;
clients' load and unload calls are refused.
--shared-memory system lets clients register POSIX shared-memory objects
of this host (which clients on it make) and name them for inputs and
outputs (the protocol's system shared-memory extension; trusted clients
only: any client that reaches the server may name any object the server
can open). With none (the default) those calls and requests are refused.
--tls-cert and --tls-key (PEM: the certificate, with its chain, and its
private key) serve HTTPS and gRPC over TLS on the same ports; with
--tls-client-ca (PEM certificates of authorities), only clients with a
certificate those signed are served (mutual TLS).
--http-spin-us N: after answering, while nothing else is being served, an
HTTP connection's thread waits up to N us for its next request spinning
rather than sleeping (lower latency at a few clients, for CPU time).
--http-header-timeout-secs N: a connection whose next request's headers
are not all in N s after it connected or got its last answer is closed
(0: no limit; a client sending a byte at a time would hold its thread).
--http-restricted-api and --grpc-restricted-protocol (repeatable, as
Triton's): calls of the categories named (comma separated: health,
metadata, inference, shared-memory, model-config, model-repository,
statistics, trace, logging) are served only with the header (gRPC:
metadata) KEY set to VALUE; others get 403 / PERMISSION_DENIED.
SIGTERM or SIGINT: stop accepting, answer every request taken, exit 0.
Requests still unanswered --exit-timeout-secs after the signal (0: no
limit), or when a second signal comes, are dropped: the server exits 1.
)";
  return 2;
}

// Reads a PEM file; false, naming the file, when it cannot be read or
// holds no PEM block whose label ends with `label` ("PRIVATE KEY" takes
// PKCS#8, RSA and EC keys alike).
bool ReadPem(const std::string& path,
             const std::string& label,
             std::string* text,
             std::string* error) {
  std::ifstream file(path, std::ios::binary);
  if (!file.is_open()) {
    *error = "cannot read " + path + ": " + std::strerror(errno);
    return false;
  }
  std::stringstream contents;
  contents << file.rdbuf();
  *text = contents.str();
  static const std::string kBegin = "-----BEGIN ";
  for (size_t at = text->find(kBegin); at != std::string::npos;
       at = text->find(kBegin, at + 1)) {
    const size_t name_at = at + kBegin.size();
    const size_t end = text->find("-----", name_at);
    if (end == std::string::npos) break;
    const std::string name = text->substr(name_at, end - name_at);
    if (name.size() >= label.size() &&
        name.compare(name.size() - label.size(), label.size(), label) == 0) {
      if (name.rfind("ENCRYPTED", 0) == 0 ||
          text->find("Proc-Type: 4,ENCRYPTED") != std::string::npos) {
        *error = path +
                 " holds an encrypted private key, and the server takes "
                 "no passphrase: decrypt it (openssl pkey -in KEY -out "
                 "PLAIN_KEY) and keep that file private";
        return false;
      }
      return true;
    }
  }
  *error =
      path + " holds no PEM " + label + " (-----BEGIN ..." + label + "-----)";
  return false;
}

bool ParseInt(const std::string& text,
              long long min,
              long long max,
              long long* out) {
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || v < min || v > max) {
    return false;
  }
  *out = v;
  return true;
}

// ParseInt into an integer of another type (the bounds fit in it).
template <typename T>
bool ParseIntTo(const std::string& text, long long min, long long max, T* out) {
  long long v = 0;
  if (!ParseInt(text, min, max, &v)) return false;
  *out = static_cast<T>(v);
  return true;
}

// glibc gives each thread that allocates under contention an arena of
// its own, up to 8 per core, and an arena keeps its peak: with 64 HTTP and
// 128 gRPC threads the server's RSS crept up run after run (94 MB after
// 50 s of the load test, +1.4-2.2% over its last 30 s). One arena per core
// held it at 74 MB (+0.9%) with no fewer requests served. A limit the user
// set (MALLOC_ARENA_MAX, or GLIBC_TUNABLES) wins.
void LimitMallocArenas() {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (std::getenv("MALLOC_ARENA_MAX") != nullptr ||
      (tunables != nullptr && std::strstr(tunables, "arena_max") != nullptr)) {
    return;
  }
  const unsigned cores = std::thread::hardware_concurrency();
  mallopt(M_ARENA_MAX, static_cast<int>(cores < 2 ? 2 : cores));
}

// libgomp reads how idle OpenMP threads wait from the environment when it
// loads, before main. Unset, a process with more OpenMP threads than
// cores, which a server's instances together soon are, gets threads that
// sleep at once at every barrier, so every op of a run on several threads
// pays a wake-up: the OCR classifier on an instance of 2 threads took 1.8
// ms a request on the 2-core VM, against 0.43 ms for a bare loop.
// Unless the environment says how to wait, the server executes itself
// again, once, with threads that spin a bounded while (GOMP_SPINCOUNT
// 20000 pauses, about a millisecond) before they sleep: long enough to
// span the gaps between a run's ops, short enough that idle instances
// leave the cores to the rest. docs/serving.md, "OpenMP threads".
void SetOpenMpWaitPolicy(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr ||
      std::getenv("GOMP_SPINCOUNT") != nullptr) {
    return;
  }
  setenv("OMP_WAIT_POLICY", "ACTIVE", 1);
  setenv("GOMP_SPINCOUNT", "20000", 1);
  execv("/proc/self/exe", argv);
  // Not re-executed (no /proc): serves with libgomp's defaults.
  unsetenv("OMP_WAIT_POLICY");
  unsetenv("GOMP_SPINCOUNT");
}

}  // namespace

int main(int argc, char** argv) {
  SetOpenMpWaitPolicy(argv);
  LimitMallocArenas();
  FLAGS_logtostderr = true;
  google::InitGoogleLogging(argv[0]);
  std::string repository;
  std::string tls_cert_file, tls_key_file, tls_client_ca_file;
  pdlite::serve::ServerOptions server_options;
  std::string model_control_mode = "none";
  long long poll_seconds = -1;
  long long exit_timeout_seconds = 30;
  pdlite::serve::HttpOptions options;
  pdlite::serve::GrpcOptions grpc_options;
  // The flags that take a value, each with what it does with one: an empty
  // string, or what is wrong with it.
  const std::string ok;
  using FlagHandler = std::function<std::string(const std::string&)>;
  // A flag whose value goes to `*target` as it is.
  auto text_flag = [&ok](std::string* target) -> FlagHandler {
    return [&ok, target](const std::string& v) {
      *target = v;
      return ok;
    };
  };
  // A flag whose value is an integer in [min, max] for `*target`; `error`
  // when it is not.
  auto integer_flag = [&ok](auto* target, long long min, long long max,
                            std::string error) -> FlagHandler {
    return [&ok, target, min, max, error](const std::string& v) {
      return ParseIntTo(v, min, max, target) ? ok : error;
    };
  };
  // A flag whose value is a count of megabytes in [1, 2^20] for `*target`,
  // in bytes; `error` when it is not.
  auto megabytes_flag = [&ok](size_t* target,
                              std::string error) -> FlagHandler {
    return [&ok, target, error](const std::string& v) {
      long long mb = 0;
      if (!ParseInt(v, 1, 1 << 20, &mb)) return error;
      *target = static_cast<size_t>(mb) << 20;
      return ok;
    };
  };
  const std::map<std::string, FlagHandler> value_flags = {
      {"--model-repository", text_flag(&repository)},
      {"--model-control-mode",
       [&](const std::string& v) {
         if (v != "none" && v != "explicit" && v != "poll") {
           return std::string("--model-control-mode is none, explicit or poll");
         }
         model_control_mode = v;
         return ok;
       }},
      {"--repository-poll-secs",
       integer_flag(&poll_seconds, 1, 86400,
                    "bad --repository-poll-secs (1 to 86400)")},
      {"--shared-memory",
       [&](const std::string& v) {
         if (v != "none" && v != "system") {
           return std::string("--shared-memory is none or system");
         }
         server_options.shared_memory = v == "system";
         return ok;
       }},
      {"--http-restricted-api",
       [&](const std::string& v) {
         std::string why;
         return options.restricted.Add(v, &why)
                    ? ok
                    : "--http-restricted-api: " + why;
       }},
      {"--grpc-restricted-protocol",
       [&](const std::string& v) {
         std::string why;
         return grpc_options.restricted.Add(v, &why)
                    ? ok
                    : "--grpc-restricted-protocol: " + why;
       }},
      {"--exit-timeout-secs", integer_flag(&exit_timeout_seconds, 0, 86400,
                                           "bad --exit-timeout-secs")},
      {"--http-spin-us",
       integer_flag(&options.spin_us, 0, 10000, "bad --http-spin-us")},
      {"--http-header-timeout-secs",
       integer_flag(&options.header_timeout_s, 0, 3600,
                    "bad --http-header-timeout-secs")},
      {"--tls-cert", text_flag(&tls_cert_file)},
      {"--tls-key", text_flag(&tls_key_file)},
      {"--tls-client-ca", text_flag(&tls_client_ca_file)},
      {"--host", text_flag(&options.host)},
      {"--http-port", integer_flag(&options.port, 0, 65535, "bad --http-port")},
      {"--grpc-port",
       integer_flag(&grpc_options.port, -1, 65535, "bad --grpc-port")},
      {"--grpc-threads",
       integer_flag(&grpc_options.threads, 1, 4096, "bad --grpc-threads")},
      {"--http-threads",
       integer_flag(&options.threads, 1, 1024, "bad --http-threads")},
      {"--max-body-mb",
       megabytes_flag(&options.max_body_bytes, "bad --max-body-mb")},
      {"--max-json-decoding-mb",
       megabytes_flag(&options.max_json_decoding_bytes,
                      "bad --max-json-decoding-mb")},
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    if (arg.rfind("--", 0) == 0 && arg.find('=') != std::string::npos) {
      value = arg.substr(arg.find('=') + 1);
      arg = arg.substr(0, arg.find('='));
      has_value = true;
    }
    if (arg == "-h" || arg == "--help") {
      Usage("");
      return 0;
    }
    if (arg == "--verbose") {
      server_options.log_verbose_level = 1;
      continue;
    }
    // Every other flag takes a value: an unknown one is named as such, not
    // as one missing its value.
    const auto flag = value_flags.find(arg);
    if (flag == value_flags.end()) {
      return Usage("unknown argument '" + arg + "'");
    }
    if (!has_value) {
      if (i + 1 >= argc) return Usage(arg + " needs a value");
      value = argv[++i];
    }
    const std::string problem = flag->second(value);
    if (!problem.empty()) return Usage(problem);
  }
  if (repository.empty()) return Usage("--model-repository is required");
  // "[::1]" as addresses write it: the name is what is inside.
  if (options.host.size() > 2 && options.host.front() == '[' &&
      options.host.back() == ']') {
    options.host = options.host.substr(1, options.host.size() - 2);
  }
  // --max-body-mb bounds gRPC messages and shared-memory inputs alike.
  grpc_options.max_message_bytes = options.max_body_bytes;
  server_options.max_shared_memory_input_bytes = options.max_body_bytes;
  if (poll_seconds > 0 && model_control_mode != "poll") {
    return Usage("--repository-poll-secs needs --model-control-mode poll");
  }
  server_options.model_control = model_control_mode == "explicit";
  // A 404 naming the models would tell what the restricted calls hide.
  for (const pdlite::serve::ApiRestrictions* restricted :
       {&options.restricted, &grpc_options.restricted}) {
    for (auto category : {pdlite::serve::ApiCategory::kMetadata,
                          pdlite::serve::ApiCategory::kModelRepository,
                          pdlite::serve::ApiCategory::kStatistics}) {
      if (restricted->Restricts(category)) {
        server_options.name_models_in_errors = false;
      }
    }
  }
  if (model_control_mode == "poll") {
    // Triton's default interval.
    server_options.repository_poll =
        std::chrono::seconds(poll_seconds > 0 ? poll_seconds : 15);
  }
  if (tls_cert_file.empty() != tls_key_file.empty()) {
    return Usage("--tls-cert and --tls-key go together");
  }
  if (!tls_client_ca_file.empty() && tls_cert_file.empty()) {
    return Usage("--tls-client-ca needs --tls-cert and --tls-key");
  }
  if (!tls_cert_file.empty()) {
    std::string error;
    if (!ReadPem(tls_cert_file, "CERTIFICATE", &options.tls_cert_pem, &error) ||
        !ReadPem(tls_key_file, "PRIVATE KEY", &options.tls_key_pem, &error)) {
      std::cerr << "pdlite serve: " << error << "\n";
      return 1;
    }
    if (!tls_client_ca_file.empty() &&
        !ReadPem(tls_client_ca_file, "CERTIFICATE", &options.tls_client_ca_pem,
                 &error)) {
      std::cerr << "pdlite serve: " << error << "\n";
      return 1;
    }
    grpc_options.tls_cert_pem = options.tls_cert_pem;
    grpc_options.tls_key_pem = options.tls_key_pem;
    grpc_options.tls_client_ca_pem = options.tls_client_ca_pem;
  }

  // SIGTERM and SIGINT are taken by one thread with sigwait, so they are
  // blocked in every thread started from here on (workers, HTTP pool).
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // A client that hangs up must not kill the server.
  signal(SIGPIPE, SIG_IGN);

  std::unique_ptr<pdlite::serve::InferenceServer> server;
  try {
    server = std::make_unique<pdlite::serve::InferenceServer>(repository,
                                                              server_options);
  } catch (const std::exception& e) {
    std::cerr << "pdlite serve: " << e.what() << "\n";
    return 1;
  }
  pdlite::serve::HttpFrontend http(server.get(), options);
  int port = http.Bind();
  if (port < 0) {
    if (tls_cert_file.empty()) {
      std::cerr << "pdlite serve: cannot listen on "
                << pdlite::serve::HostForAddress(options.host) << ":"
                << options.port << "\n";
    } else {
      std::cerr << "pdlite serve: cannot start HTTPS on " << options.host << ":"
                << options.port << " with the certificate " << tls_cert_file
                << " and the key " << tls_key_file
                << " (the log above says why, when libmicrohttpd refused "
                   "them; else the address is taken)\n";
    }
    return 1;
  }
  std::cout << "listening on " << pdlite::serve::HostForAddress(options.host)
            << ":" << port << std::endl;
  grpc_options.host = options.host;
  pdlite::serve::GrpcFrontend grpc(server.get(), grpc_options);
  if (grpc_options.port >= 0) {
    const int grpc_port = grpc.Start();
    if (grpc_port < 0) {
      std::cerr << "pdlite serve: cannot serve gRPC"
                << (tls_cert_file.empty() ? "" : " over TLS") << " on "
                << pdlite::serve::HostForAddress(options.host) << ":"
                << grpc_options.port
                << (tls_cert_file.empty()
                        ? ""
                        : " (gRPC's log above says why, when it refused the "
                          "certificate or key)")
                << "\n";
      return 1;
    }
    std::cout << "grpc listening on "
              << pdlite::serve::HostForAddress(options.host) << ":" << grpc_port
              << std::endl;
  }

  // Set once every request taken is answered.
  std::atomic<bool> drained{false};
  // Set once a signal came and HTTP stopped accepting: gRPC stops accepting
  // then too, while HTTP's connections drain.
  std::promise<void> stop_accepting;
  std::future<void> stop_grpc = stop_accepting.get_future();
  // HTTP is answered from Bind() on; Serve() returns only after Stop().
  std::thread waiter([&] {
    int received = 0;
    sigwait(&signals, &received);
    LOG(INFO) << "signal " << received
              << ": no new connections; answering those taken";
    // First: not ready from now on, and an unload under way stops waiting.
    server->BeginShutdown();
    http.Stop();
    stop_accepting.set_value();
    // The drain is bounded (an orchestrator's grace period is, too), and a
    // second signal ends it: the requests still in flight are dropped.
    const auto deadline = exit_timeout_seconds > 0
                              ? std::chrono::steady_clock::now() +
                                    std::chrono::seconds(exit_timeout_seconds)
                              : std::chrono::steady_clock::time_point::max();
    while (!drained) {
      const timespec slice = {0, 100 * 1000 * 1000};
      const int again = sigtimedwait(&signals, nullptr, &slice);
      const bool late = std::chrono::steady_clock::now() >= deadline;
      // HTTP requests count from their headers (a body still arriving is
      // a request in flight) until answered.
      const int http_requests = http.active_requests();
      if (late && !drained && server->metrics().inflight() == 0 &&
          http_requests == 0) {
        // What is left is idle kept-alive connections timing out, or a
        // model control call over gRPC: no inference request is dropped.
        LOG(WARNING) << "--exit-timeout-secs " << exit_timeout_seconds
                     << " passed with no request in flight: exiting";
        std::_Exit(0);
      }
      if ((again > 0 || late) && !drained) {
        LOG(ERROR) << (again > 0 ? "signal " + std::to_string(again) + " again"
                                 : "--exit-timeout-secs " +
                                       std::to_string(exit_timeout_seconds) +
                                       " passed")
                   << ": exiting with " << server->metrics().inflight()
                   << " request(s) in flight unanswered"
                   << (http_requests > 0
                           ? " (" + std::to_string(http_requests) +
                                 " HTTP request(s) being received or "
                                 "answered)"
                           : std::string());
        std::_Exit(1);
      }
    }
  });
  // Refuses new RPCs and returns once those taken are answered.
  std::thread grpc_stopper([&] {
    stop_grpc.wait();
    grpc.Stop();
  });
  http.Serve();
  grpc_stopper.join();
  // Every accepted request is answered; Stop() waits for any run still
  // going and answers what is left queued.
  server->Stop();
  drained = true;
  waiter.join();
  LOG(INFO) << "stopped";
  return 0;
}
