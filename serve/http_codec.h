// The JSON wire format of the Open Inference Protocol's infer call over
// HTTP/REST, with the binary tensor data extension: request bodies in,
// response bodies out. No socket: the HTTP front end (http_frontend.h)
// calls these, and the tests call them directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "serve/types.h"

namespace pdlite {
namespace serve {

/// The wire options of an infer request that the core does not need.
struct WireOptions {
  bool binary_default = false;                // binary_data_output
  std::map<std::string, bool> binary_output;  // per output: binary_data
};

/// Spare capacity a request body should have past its end: with it the
/// JSON parser reads the body where it is, without it the parser first
/// copies the JSON (its SIMD loads read up to this far past the end).
constexpr size_t kBodyPaddingBytes = 64;

/// A request target in origin form: "http://host:8000/v2/x" (the absolute
/// form, which RFC 9112 has servers take, as proxies send it) as "/v2/x";
/// any other target as it is.
std::string OriginForm(const std::string& target);

/// A path under /v2/models/: the model, its version ("" when not named)
/// and what is asked of it ("", "ready", "infer", "stats" or "config");
/// false for other paths. The router and the restricted APIs' categories
/// read paths with it alike.
bool ParseModelPath(const std::string& path,
                    std::string* model,
                    std::string* version,
                    std::string* action);

/// Decodes an infer request body. `json_length` is the
/// Inference-Header-Content-Length value, or -1 when absent (all JSON).
/// Sets model and version of `request` from nothing: the caller does.
/// Binary inputs borrow their bytes from `body`, which must outlive
/// `request`.
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
/// The same, into `*answer`, unless the answer would pass `max_bytes`:
/// then false (`*answer` empty), having encoded little more than that.
bool EncodeInferResponseWithin(const InferResponse& response,
                               const std::string& id,
                               const WireOptions& options,
                               size_t max_bytes,
                               std::string* answer,
                               int64_t* json_length);

}  // namespace serve
}  // namespace pdlite
