// Implementation of VisitDataType (kept apart to keep data_type.h short).
#pragma once

#include "platform/enforce.h"

namespace paddle_lite {
namespace framework {

template <typename Fn>
void VisitDataType(DataType type, Fn&& fn) {
  switch (type) {
    case DataType::kBool:
      return fn(bool{});
    case DataType::kInt16:
      return fn(int16_t{});
    case DataType::kInt32:
      return fn(int32_t{});
    case DataType::kInt64:
      return fn(int64_t{});
    case DataType::kFloat16:
      return fn(platform::float16{});
    case DataType::kFloat32:
      return fn(float{});
    case DataType::kFloat64:
      return fn(double{});
    case DataType::kUInt8:
      return fn(uint8_t{});
    case DataType::kInt8:
      return fn(int8_t{});
    case DataType::kBFloat16:
      return fn(platform::bfloat16{});
    case DataType::kUndefined:
      break;
  }
  PADDLE_THROW(platform::errors::Unimplemented(
      "Unsupported data type ", static_cast<int>(type), "."));
}

}  // namespace framework
}  // namespace paddle_lite
