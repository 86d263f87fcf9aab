// gRPC's health checking service (grpc.health.v1.Health) for `pdlite
// serve`: what Kubernetes' `grpc` probes, Envoy and gRPC's client-side
// health checking ask. gRPC headers stay in the .cc.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace grpc {
class CallbackServerContext;
class Service;
}  // namespace grpc

namespace pdlite {
namespace serve {

class GrpcHealthService {
 public:
  /// The service names answered: the whole server ("") and the inference
  /// service. Both are SERVING while the server is ready.
  static constexpr const char* kInferenceServiceName =
      "inference.GRPCInferenceService";
  /// Watch calls open at once; one past it is refused (RESOURCE_EXHAUSTED).
  static constexpr int kMaxWatches = 1024;
  /// How often open watches look at the server's readiness.
  static constexpr int kWatchPollMs = 200;

  /// `ready`: whether the server is ready (InferenceServer::Ready).
  /// `allowed`: whether a call may be served (the health category of
  /// --grpc-restricted-protocol), with the reason when not.
  using Allowed =
      std::function<bool(grpc::CallbackServerContext*, std::string* why)>;
  GrpcHealthService(std::function<bool()> ready, Allowed allowed);
  ~GrpcHealthService();

  /// For grpc::ServerBuilder::RegisterService; owned by this object.
  grpc::Service* service();
  /// The server is stopping: every watch gets NOT_SERVING and ends
  /// (UNAVAILABLE), and later ones are refused, so that gRPC's shutdown
  /// does not wait on them.
  void Close();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace serve
}  // namespace pdlite
