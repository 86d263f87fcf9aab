// Protocol-neutral request, response and status types of the inference
// server: the HTTP front end (and a later gRPC one) translate their wire
// format into these and call InferenceServer (server.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "paddle_lite/paddle_lite.h"

namespace pdlite {
namespace serve {

enum class StatusCode {
  kOk,
  kInvalidArgument,    // HTTP 400
  kNotFound,           // 404: unknown model or version
  kResourceExhausted,  // 503 (gRPC RESOURCE_EXHAUSTED): the queue is full
  kUnavailable,        // 503: model not ready, shutting down
  kDeadlineExceeded,   // 504: the request's timeout expired while queued
  kInternal,           // 500
  kAlreadyExists,      // 400 (gRPC ALREADY_EXISTS): a name registered twice
  kCancelled,          // 499 (gRPC CANCELLED): the caller went away
};

struct Status {
  StatusCode code = StatusCode::kOk;
  std::string message;
  bool ok() const { return code == StatusCode::kOk; }
  static Status Error(StatusCode code, std::string message) {
    return Status{code, std::move(message)};
  }
};

/// The protocol's datatype name ("FP32", "INT64", ...) of a runtime type.
const char* ProtocolTypeName(paddle_lite::DataType type);
/// The runtime type of a protocol datatype name; false when unknown or not
/// supported by the runtime's tensors (BYTES, UINT16, UINT32, UINT64).
bool ParseProtocolType(const std::string& name, paddle_lite::DataType* type);
/// Every datatype ParseProtocolType takes, for messages: "FP32, FP64, ...".
const std::string& ProtocolTypeNames();
/// A shape as messages show it: "[1,3,48,192]".
std::string ShapeString(const std::vector<int64_t>& shape);

/// The names of a '/'-separated path, empty ones kept ("a//b" has three).
std::vector<std::string> SplitPath(const std::string& path);

/// Calls `visit(&i)` for the index `i` of each byte of JSON `text` outside
/// its strings (a string, quotes and escapes included, is skipped whole),
/// in order; `visit` may move `i` on past bytes it consumed, and stops the
/// walk by returning false. Returns false when `visit` stopped it.
template <typename Visit>
bool ForEachByteOutsideStrings(std::string_view text, Visit&& visit) {
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (in_string) {
      if (text[i] == '\\') {
        ++i;
      } else if (text[i] == '"') {
        in_string = false;
      }
    } else if (text[i] == '"') {
      in_string = true;
    } else if (!visit(&i)) {
      return false;
    }
  }
  return true;
}

/// Whether JSON text nests at most `max_depth` deep and holds at most
/// `max_values` values (counted by their separators), scanned without
/// parsing: nlohmann-json builds a node of tens of bytes for each value,
/// so text of nested or many small values takes many times its size
/// parsed. Strings may hold anything. Malformed text may pass; the parser
/// refuses it.
bool JsonWithinShape(const std::string& text, int max_depth, size_t max_values);

/// JSON text parsed as Triton's reader (rapidjson) and this server's infer
/// requests (simdjson) take it: of keys repeated in one object, the first
/// (nlohmann-json alone would keep the last). False, with the parser's
/// message in `error`, when it is not JSON.
bool ParseJson(const std::string& text,
               nlohmann::json* parsed,
               std::string* error);

/// A host as it goes before ":port" in an address: an IPv6 one ("::1") in
/// brackets ("[::1]").
std::string HostForAddress(const std::string& host);

/// `text` (a name or path a client sent) as a log line may hold it: each
/// byte below 0x20, 0x7F, a backslash, and every byte of text that is not
/// UTF-8 as \xNN (a client's "\n" would start a forged line), and at most
/// `max_bytes` of it kept, then "... (N bytes more)".
std::string LoggedText(const std::string& text, size_t max_bytes = 256);

/// Whether `name` can name a model: one folder of the repository (not
/// empty, ".", ".." or holding '/', at most 255 bytes), UTF-8 (protobuf
/// strings, JSON and Prometheus labels must be) without control characters (a
/// newline would forge lines of the log, which names models).
bool IsModelName(const std::string& name);

/// Bytes per element; every paddle_lite::DataType has a size (0 only for a
/// value outside the enum).
size_t ElementSize(paddle_lite::DataType type);

/// Calls f(T{}) with the C++ type of `type`'s elements (bool for BOOL,
/// paddle_lite::float16 and bfloat16 for FP16 and BF16); false for a type
/// the protocol's tensors cannot hold.
template <typename F>
bool VisitType(paddle_lite::DataType type, F&& f) {
  using paddle_lite::DataType;
  switch (type) {
    case DataType::FLOAT32:
      f(float{});
      return true;
    case DataType::FLOAT64:
      f(double{});
      return true;
    case DataType::INT8:
      f(int8_t{});
      return true;
    case DataType::UINT8:
      f(uint8_t{});
      return true;
    case DataType::INT16:
      f(int16_t{});
      return true;
    case DataType::INT32:
      f(int32_t{});
      return true;
    case DataType::INT64:
      f(int64_t{});
      return true;
    case DataType::BOOL:
      f(bool{});
      return true;
    case DataType::FLOAT16:
      f(paddle_lite::float16{});
      return true;
    case DataType::BFLOAT16:
      f(paddle_lite::bfloat16{});
      return true;
    default:
      return false;
  }
}

/// Where a tensor's elements are in a registered shared-memory region: the
/// protocol's shared-memory extension, its "shared_memory_region",
/// "shared_memory_offset" and "shared_memory_byte_size" parameters.
struct SharedMemoryRef {
  std::string region;  // empty: not in shared memory
  uint64_t offset = 0;
  uint64_t byte_size = 0;
  bool used() const { return !region.empty(); }
};

/// One tensor with its elements as raw little-endian bytes, row major.
struct TensorData {
  std::string name;
  paddle_lite::DataType type = paddle_lite::DataType::FLOAT32;
  std::vector<int64_t> shape;
  std::string bytes;
  /// An input's elements where they arrived (an HTTP body's binary data, a
  /// gRPC message's raw contents), which outlive the request's answer:
  /// copying them into `bytes` first cost a copy of every input and twice
  /// its memory while it waits. Null when `bytes` holds them.
  std::string_view borrowed;
  paddle_lite::LoD lod;  // inputs: our "lod" parameter; empty when none
  /// BYTES, which only outputs of the classification extension are:
  /// `bytes` holds strings, each its length as 4 little-endian bytes and
  /// then its bytes (the protocol's serialization), and `type` is unused.
  bool is_bytes = false;
  /// An input whose elements are in shared memory (read into `bytes` by
  /// the server before the model sees it), or an output written there (its
  /// byte_size what was written, and no elements).
  SharedMemoryRef shared_memory;

  /// An input whose elements are still in shared memory: reads them
  /// (shared_memory.byte_size bytes) to `out`. Set by the server so that
  /// they are read once, straight into the model's input, when the request
  /// runs, and a request waiting in the queue holds no copy. Empty when
  /// `bytes` or `borrowed` holds them.
  std::function<Status(char* out)> read_shared_memory;

  /// The elements: `borrowed` when set, else `bytes` (not those still in
  /// shared memory: see CopyElements).
  std::string_view elements() const {
    return borrowed.data() != nullptr ? borrowed : std::string_view(bytes);
  }
  /// The elements' size in bytes, wherever they are.
  size_t element_bytes() const {
    return read_shared_memory ? shared_memory.byte_size : elements().size();
  }
  /// Copies the elements, wherever they are, to `out` (element_bytes() of
  /// room); fails only when shared memory cannot be read.
  Status CopyElements(char* out) const;
  /// Reads elements still in shared memory into `bytes`.
  Status ReadSharedMemory();
};

/// The protocol's datatype of a tensor: "BYTES", or its type's name.
const char* DatatypeName(const TensorData& tensor);

struct InferResponse;

struct InferRequest {
  std::string model;
  /// Empty: the model's default (highest) version.
  std::string version;
  std::string id;
  std::vector<TensorData> inputs;
  /// Outputs to return; empty: all of them, in the model's order.
  std::vector<std::string> outputs;
  /// Outputs to return as their highest-valued classes (the
  /// classification extension): output name -> how many.
  std::map<std::string, int64_t> classification;
  /// Outputs to write into shared memory rather than into the answer.
  std::map<std::string, SharedMemoryRef> output_shared_memory;
  /// When set, called with the model's answer before it counts in the
  /// statistics and goes back: the server writes the outputs asked for in
  /// shared memory there, which may fail the request.
  std::function<void(InferResponse*)> before_answer;
  /// Microseconds the request may wait in the queue; < 0: the model's
  /// configured timeout_ms (0 there: no limit).
  int64_t timeout_us = -1;
  /// The caller's own deadline (a gRPC call's): a request still queued
  /// then, or arriving after it, is answered DEADLINE_EXCEEDED without
  /// running, since nobody waits for its answer any more.
  std::chrono::steady_clock::time_point caller_deadline =
      std::chrono::steady_clock::time_point::max();
  /// When set, whether the caller has gone (a gRPC call cancelled, an HTTP
  /// client's connection closed): a worker that takes such a request from
  /// the queue answers it CANCELLED rather than running it. It may be
  /// called with the model's lock held: it must be quick and take no lock
  /// of the server's.
  std::function<bool()> abandoned;
};

struct InferResponse {
  Status status;
  std::string model;
  std::string version;
  std::vector<TensorData> outputs;
};

}  // namespace serve
}  // namespace pdlite
