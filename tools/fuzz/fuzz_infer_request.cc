// libFuzzer entry of the infer request fuzzer: bytes as the body of an
// HTTP infer request to `pdlite serve` (serve/http_codec.h), decoded, and
// when taken, its inputs encoded back as a response that must be valid
// JSON. The first byte, when odd, makes the body binary framed: the JSON
// header runs to the last '}' and the rest is tensor data.
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "serve/http_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using pdlite::serve::InferRequest;
  using pdlite::serve::InferResponse;
  using pdlite::serve::WireOptions;
  if (size == 0) return 0;
  const bool framed = (data[0] & 1) != 0;
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  int64_t json_length = -1;
  if (framed) {
    const size_t end = body.rfind('}');
    json_length = end == std::string::npos ? 0 : static_cast<int64_t>(end + 1);
  }
  InferRequest request;
  WireOptions options;
  if (!pdlite::serve::DecodeInferRequest(body, json_length, &request, &options)
           .ok()) {
    return 0;
  }
  InferResponse response;
  response.model = request.id;
  for (auto& in : request.inputs) {
    auto out = in;
    out.bytes = std::string(in.elements());
    out.borrowed = {};
    response.outputs.push_back(std::move(out));
  }
  int64_t header_length = -1;
  const std::string answer = pdlite::serve::EncodeInferResponse(
      response, request.id, options, &header_length);
  const size_t json_size =
      header_length < 0 ? answer.size() : static_cast<size_t>(header_length);
  if (!nlohmann::json::accept(answer.substr(0, json_size))) std::abort();
  return 0;
}
