// Hostile edits to a parsed program: replaces integers (op attributes and
// declared variable dims) and floats with values a damaged or malicious
// file could carry. Shared by the hostile-program sweep (pdlite_hostile),
// its ctest suite and the structure-aware fuzzer.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "framework/program_desc.h"

namespace paddle_lite {
namespace fuzz {

/// Applies `edits` random edits to `program`, drawn from `rng`; returns
/// what changed, one "block/op #i type attr: old -> new" per line. A
/// program with nothing to edit is left as it is (empty return).
std::string MutateProgram(framework::ProgramDesc* program,
                          int edits,
                          std::mt19937_64* rng);

}  // namespace fuzz
}  // namespace paddle_lite
