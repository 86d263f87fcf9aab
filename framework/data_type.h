// Element types of tensors, numbered as PaddlePaddle's VarType.Type so the
// value read from a file is the enum value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>

#include "platform/float16.h"

namespace paddle_lite {
namespace framework {

enum class DataType : int {
  kBool = 0,
  kInt16 = 1,
  kInt32 = 2,
  kInt64 = 3,
  kFloat16 = 4,
  kFloat32 = 5,
  kFloat64 = 6,
  kUInt8 = 20,
  kInt8 = 21,
  kBFloat16 = 22,
  kUndefined = -1,
};

/// Bytes per element; throws Unimplemented for kUndefined.
size_t SizeOf(DataType type);
/// "float32", "int64", ... (NumPy's names).
std::string DataTypeName(DataType type);
/// True for the values above except kUndefined.
bool IsValidDataType(int value);
/// Parses DataTypeName() output; throws InvalidArgument otherwise.
DataType ParseDataType(const std::string& name);

std::ostream& operator<<(std::ostream& os, DataType type);

/// C++ type -> DataType.
template <typename T>
struct DataTypeOf;
#define PDLITE_DATA_TYPE_OF(CPP, ENUM) \
  template <>                          \
  struct DataTypeOf<CPP> {             \
    static constexpr DataType value = DataType::ENUM; \
  };
PDLITE_DATA_TYPE_OF(bool, kBool)
PDLITE_DATA_TYPE_OF(int16_t, kInt16)
PDLITE_DATA_TYPE_OF(int32_t, kInt32)
PDLITE_DATA_TYPE_OF(int64_t, kInt64)
PDLITE_DATA_TYPE_OF(platform::float16, kFloat16)
PDLITE_DATA_TYPE_OF(float, kFloat32)
PDLITE_DATA_TYPE_OF(double, kFloat64)
PDLITE_DATA_TYPE_OF(uint8_t, kUInt8)
PDLITE_DATA_TYPE_OF(int8_t, kInt8)
PDLITE_DATA_TYPE_OF(platform::bfloat16, kBFloat16)
#undef PDLITE_DATA_TYPE_OF

template <typename T>
constexpr DataType ToDataType() {
  return DataTypeOf<T>::value;
}

/// Calls fn(T{}) with the C++ type of `type` (every defined type).
template <typename Fn>
void VisitDataType(DataType type, Fn&& fn);

}  // namespace framework
}  // namespace paddle_lite

#include "framework/data_type_visit.h"
