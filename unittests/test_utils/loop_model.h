// A program with a `while` loop whose length its inputs choose, for the
// tests of the loop limit (Config::SetMaxLoopIterations) through the API,
// pdlite and the server.
#pragma once

#include <string>

namespace paddle_lite {
namespace testing {

/// Inputs "i" and "n" (INT64, [1]); a loop adds 1 to i while i < n; the
/// output is i, so from i = 0 it makes n iterations.
std::string CountingLoopProgram();

/// Writes CountingLoopProgram() as `<prefix>.pdmodel` and an empty
/// `<prefix>.pdiparams` (the program has no parameters).
void SaveCountingLoopModel(const std::string& prefix);

}  // namespace testing
}  // namespace paddle_lite
