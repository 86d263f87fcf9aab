// The gRPC front end of `pdlite serve`: GRPCInferenceService of the Open
// Inference Protocol (grpc_predict_v2.proto) over InferenceServer's
// protocol-neutral calls. gRPC headers stay in the .cc.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "serve/restricted_api.h"
#include "serve/server.h"
#include "serve/types.h"

namespace grpc {
class Server;
class Status;
}  // namespace grpc

namespace inference {
class ModelInferRequest;
class ModelInferResponse;
}  // namespace inference

namespace pdlite {
namespace serve {

class GrpcHealthService;

/// Decodes a ModelInfer request: typed `contents` or `raw_input_contents`
/// (one entry per input) into raw bytes. The model checks names, types and
/// shapes against its inputs afterwards. Raw contents are borrowed from
/// `wire`, which must outlive `request`.
Status DecodeGrpcInferRequest(const inference::ModelInferRequest& wire,
                              InferRequest* request);
/// Encodes a successful response; outputs go to raw_output_contents, as
/// Triton's clients expect.
void EncodeGrpcInferResponse(const InferResponse& response,
                             const std::string& id,
                             inference::ModelInferResponse* wire);
/// The gRPC status for a core status.
grpc::Status GrpcStatus(const Status& status);

struct GrpcOptions {
  std::string host = "0.0.0.0";
  int port = 8001;  // 0: any free port (Start() returns it)
  // The ModelInfer calls taken at once (queued ones hold no thread); a call
  // past it is refused (RESOURCE_EXHAUSTED), so this is well above the
  // calls the model queues hold. The health and metadata calls answer at
  // once and are not counted.
  int threads = 256;
  size_t max_message_bytes = size_t{64} << 20;
  // PEM text of the server's certificate (chain) and private key: TLS
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

class GrpcFrontend {
 public:
  GrpcFrontend(InferenceServer* server, GrpcOptions options);
  ~GrpcFrontend();

  /// Starts serving on its own threads; returns the port, -1 on failure.
  int Start();
  /// Stops accepting and returns once every RPC taken is answered.
  void Stop();

 private:
  class Service;

  InferenceServer* server_;
  GrpcOptions options_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<GrpcHealthService> health_;
  std::unique_ptr<grpc::Server> grpc_;  // last: gone before the services
};

}  // namespace serve
}  // namespace pdlite
