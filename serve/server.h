// The protocol-neutral core of `pdlite serve`: a model repository loaded
// at start, health, metadata and inference calls that an HTTP (and later a
// gRPC) front end translates its wire format to and from.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "serve/metrics.h"
#include "serve/model.h"
#include "serve/types.h"

namespace pdlite {
namespace serve {

constexpr const char* kServerName = "pdlite";
constexpr const char* kServerVersion = "0.1.0";

class InferenceServer {
 public:
  /// Loads every model of a Triton-style repository: DIR/<model>/<n>/
  /// holds version n's files, DIR/<model>/config.json its settings. A model
  /// that fails to load is kept, not ready, with the error; the others
  /// serve. Throws std::runtime_error when DIR cannot be read at all.
  explicit InferenceServer(const std::string& repository);
  ~InferenceServer();

  bool Live() const { return true; }
  /// Every model loaded and the server not shutting down.
  bool Ready() const;
  /// The protocol extensions this server implements.
  static std::vector<std::string> Extensions();

  /// The version `version` of `model` ("" = the highest); NotFound naming
  /// what exists otherwise. The pointer lives as long as the server.
  Status Find(const std::string& model,
              const std::string& version,
              const ModelVersion** found) const;
  /// Version names of `model`, ascending; empty for an unknown model.
  std::vector<std::string> Versions(const std::string& model) const;
  std::vector<std::string> ModelNames() const;

  /// Runs a request on its model version (ModelVersion::InferAsync): `done`
  /// gets the answer, on this thread when the request ran here or was
  /// refused, else on the thread that answered it.
  void InferAsync(InferRequest request, ModelVersion::Done done);
  /// InferAsync, waiting for the answer.
  InferResponse Infer(InferRequest request);

  /// Refuses new requests; answers those queued; joins the workers.
  void Stop();

  Metrics& metrics() { return metrics_; }

 private:
  ModelVersion* FindMutable(const std::string& model,
                            const std::string& version,
                            Status* status) const;

  Metrics metrics_;
  // model name -> version number -> loaded version.
  std::map<std::string, std::map<int64_t, std::unique_ptr<ModelVersion>>>
      models_;
  std::atomic<bool> stopping_{false};
};

}  // namespace serve
}  // namespace pdlite
