// Typed errors of the runtime. Every failure that a user can act on is
// reported as a paddle_lite::Exception carrying one ErrorCode; the message
// says where (op type and index, variable, file) and what was expected.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace paddle_lite {

/// Error categories, after PaddlePaddle's error codes.
enum class ErrorCode {
  kInvalidArgument = 1,
  kNotFound = 2,
  kOutOfRange = 3,
  kAlreadyExists = 4,
  kResourceExhausted = 5,
  kPreconditionNotMet = 6,
  kUnimplemented = 8,
  /// The hardware or service asked for is not there (no CUDA device).
  kUnavailable = 10,
  /// A library the runtime calls failed (CUDA, cuDNN, cuBLAS).
  kExternal = 11,
  kFatal = 12,
};

/// Name of an error code, e.g. "InvalidArgument".
const char* ErrorCodeName(ErrorCode code);

/// The one exception type thrown through the public API. what() is
/// "<CodeName>: <message>"; message() is the message alone.
class Exception : public std::runtime_error {
 public:
  Exception(ErrorCode code, const std::string& message);
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  ErrorCode code_;
  std::string message_;
};

namespace platform {

/// An error not yet thrown: a code and a message. Built by the
/// errors::InvalidArgument(...) style helpers below.
struct ErrorSummary {
  ErrorCode code;
  std::string message;
};

namespace errors {

template <typename... Args>
std::string Concat(Args&&... args) {
  std::ostringstream os;
  (os << ... << std::forward<Args>(args));
  return os.str();
}

// Each helper streams its arguments into the message: any type with an
// operator<< works, dims included (see framework/ddim.h).
#define PDLITE_DEFINE_ERROR(NAME, CODE)                 \
  template <typename... Args>                           \
  ErrorSummary NAME(Args&&... args) {                   \
    return {CODE, Concat(std::forward<Args>(args)...)}; \
  }
PDLITE_DEFINE_ERROR(InvalidArgument, ErrorCode::kInvalidArgument)
PDLITE_DEFINE_ERROR(NotFound, ErrorCode::kNotFound)
PDLITE_DEFINE_ERROR(OutOfRange, ErrorCode::kOutOfRange)
PDLITE_DEFINE_ERROR(AlreadyExists, ErrorCode::kAlreadyExists)
PDLITE_DEFINE_ERROR(ResourceExhausted, ErrorCode::kResourceExhausted)
PDLITE_DEFINE_ERROR(PreconditionNotMet, ErrorCode::kPreconditionNotMet)
PDLITE_DEFINE_ERROR(Unimplemented, ErrorCode::kUnimplemented)
PDLITE_DEFINE_ERROR(Unavailable, ErrorCode::kUnavailable)
PDLITE_DEFINE_ERROR(External, ErrorCode::kExternal)
PDLITE_DEFINE_ERROR(Fatal, ErrorCode::kFatal)
#undef PDLITE_DEFINE_ERROR

}  // namespace errors

/// Throws the error. Marked noreturn so enforce macros compile cleanly.
[[noreturn]] void ThrowError(ErrorSummary error);

/// Prefixes the message of an in-flight exception with context (for
/// example "op conv2d (#12 in block 0): ") and rethrows it with its code.
[[noreturn]] void RethrowWithContext(const Exception& e,
                                     const std::string& context);

}  // namespace platform
}  // namespace paddle_lite
