// A model whose output names differ only where pdlite writes '/' as '__'
// in a file name, for pdlite's refusal to write two outputs to one file.
#pragma once

#include <string>

namespace paddle_lite {
namespace testing {

/// Writes `<prefix>.pdmodel` and an empty `<prefix>.pdiparams`: input "x"
/// (FLOAT32, [-1, 3]); outputs "a/b" (x * 2) and "a__b" (x * 3).
void SaveSlashNamesModel(const std::string& prefix);

}  // namespace testing
}  // namespace paddle_lite
