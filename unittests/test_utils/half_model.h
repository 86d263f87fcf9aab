// A small model with half-precision inputs and outputs, written by the
// tests that need one (no shipped model has FLOAT16 or BFLOAT16 tensors).
#pragma once

#include <string>

namespace paddle_lite {
namespace testing {

/// Writes `<prefix>.pdmodel` and `<prefix>.pdiparams`: inputs "x16"
/// (FLOAT16) and "xb16" (BFLOAT16), both [-1, 3]; outputs
///   "sum"     FLOAT32:  2 * x16 + xb16 (each widened to float first),
///   "sum16"   FLOAT16:  sum narrowed to float16,
///   "sumb16"  BFLOAT16: sum narrowed to bfloat16.
/// Dim 0 is a batch dim, so a server may batch it.
void SaveHalfPrecisionModel(const std::string& prefix);

}  // namespace testing
}  // namespace paddle_lite
