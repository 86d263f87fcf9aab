// Which attribute holds the literal values of assign_value and set_value
// (ops.md 9.3, 9.4). Files store them in one typed list chosen by `dtype`
// (bool_values, fp32_values, ...) or, from 2.6 on, in the SCALARS list
// `values`. The op checks the count with this choice and the kernel reads
// the same attribute.
#pragma once

#include <string>
#include <vector>

#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

/// A value list attribute: its name ("" when no list holds values) and its
/// number of values.
struct ValueListAttr {
  std::string name;
  int64_t size = 0;
};

/// Number of values in list attribute `name` (0 when absent).
inline int64_t ValueListSize(const framework::OperatorBase& op,
                             const std::string& name) {
  if (!op.HasAttr(name)) return 0;
  return static_cast<int64_t>(op.Attr<std::vector<double>>(name).size());
}

/// The list holding the values for element type `dtype`: a non-empty
/// `values`, else the typed list of `dtype`, else the first non-empty
/// typed list. The last case follows Paddle's PHI set_value, which takes
/// whichever list is non-empty, and covers files from before FLOAT64S,
/// which stored fp64 values in fp32_values.
inline ValueListAttr ChooseValueList(const framework::OperatorBase& op,
                                     framework::DataType dtype) {
  int64_t size = ValueListSize(op, "values");
  if (size > 0) return {"values", size};
  std::string typed;
  switch (dtype) {
    case framework::DataType::kBool:
      typed = "bool_values";
      break;
    case framework::DataType::kInt32:
      typed = "int32_values";
      break;
    case framework::DataType::kInt64:
      typed = "int64_values";
      break;
    case framework::DataType::kFloat32:
      typed = "fp32_values";
      break;
    case framework::DataType::kFloat64:
      typed = "fp64_values";
      break;
    case framework::DataType::kFloat16:
      typed = "fp16_values";
      break;
    default:
      break;
  }
  if (!typed.empty()) {
    size = ValueListSize(op, typed);
    if (size > 0) return {typed, size};
  }
  for (const char* name : {"fp32_values", "fp64_values", "int32_values",
                           "int64_values", "bool_values", "fp16_values"}) {
    size = ValueListSize(op, name);
    if (size > 0) return {name, size};
  }
  return {};
}

}  // namespace operators
}  // namespace paddle_lite
