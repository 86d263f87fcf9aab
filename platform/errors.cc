#include "platform/errors.h"

namespace paddle_lite {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "InvalidArgument";
    case ErrorCode::kNotFound:
      return "NotFound";
    case ErrorCode::kOutOfRange:
      return "OutOfRange";
    case ErrorCode::kAlreadyExists:
      return "AlreadyExists";
    case ErrorCode::kResourceExhausted:
      return "ResourceExhausted";
    case ErrorCode::kPreconditionNotMet:
      return "PreconditionNotMet";
    case ErrorCode::kUnimplemented:
      return "Unimplemented";
    case ErrorCode::kUnavailable:
      return "Unavailable";
    case ErrorCode::kExternal:
      return "External";
    case ErrorCode::kFatal:
      return "Fatal";
  }
  return "Unknown";
}

Exception::Exception(ErrorCode code, const std::string& message)
    : std::runtime_error(std::string(ErrorCodeName(code)) + ": " + message),
      code_(code),
      message_(message) {}

namespace platform {

void ThrowError(ErrorSummary error) {
  throw Exception(error.code, std::move(error.message));
}

void RethrowWithContext(const Exception& e, const std::string& context) {
  throw Exception(e.code(), context + e.message());
}

}  // namespace platform
}  // namespace paddle_lite
