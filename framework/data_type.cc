#include "framework/data_type.h"

namespace paddle_lite {
namespace framework {

size_t SizeOf(DataType type) {
  size_t size = 0;
  VisitDataType(type, [&](auto v) { size = sizeof(v); });
  return size;
}

std::string DataTypeName(DataType type) {
  switch (type) {
    case DataType::kBool:
      return "bool";
    case DataType::kInt16:
      return "int16";
    case DataType::kInt32:
      return "int32";
    case DataType::kInt64:
      return "int64";
    case DataType::kFloat16:
      return "float16";
    case DataType::kFloat32:
      return "float32";
    case DataType::kFloat64:
      return "float64";
    case DataType::kUInt8:
      return "uint8";
    case DataType::kInt8:
      return "int8";
    case DataType::kBFloat16:
      return "bfloat16";
    case DataType::kUndefined:
      return "undefined";
  }
  return "dtype(" + std::to_string(static_cast<int>(type)) + ")";
}

bool IsValidDataType(int value) {
  return (value >= 0 && value <= 6) || (value >= 20 && value <= 22);
}

DataType ParseDataType(const std::string& name) {
  for (int v : {0, 1, 2, 3, 4, 5, 6, 20, 21, 22}) {
    auto t = static_cast<DataType>(v);
    if (DataTypeName(t) == name) return t;
  }
  PADDLE_THROW(errors::InvalidArgument("Unknown data type '", name, "'."));
}

std::ostream& operator<<(std::ostream& os, DataType type) {
  return os << DataTypeName(type);
}

}  // namespace framework
}  // namespace paddle_lite
