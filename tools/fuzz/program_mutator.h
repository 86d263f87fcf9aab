// Hostile edits to a parsed program, as a damaged or malicious file could
// hold them: integers (op attributes and declared variable dims) and
// floats replaced by extreme values; an attribute stored with another
// type, or left out; an op's output renamed to one of its own inputs, to
// another var or to an undeclared name; an input renamed to a var of
// another rank or type; an argument dropped from a slot or repeated; a
// var's dtype, persistable flag or LoD level changed. Shared by the
// hostile-program sweep (pdlite_hostile), its ctest suite and the
// structure-aware fuzzer.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "framework/program_desc.h"

namespace paddle_lite {
namespace fuzz {

/// Applies `edits` random edits to `program`, drawn from `rng`; returns
/// what changed, one "block B op #I TYPE what: old -> new" or "block B var
/// NAME what: old -> new" per line. A program with nothing to edit is
/// left as it is (empty return).
std::string MutateProgram(framework::ProgramDesc* program,
                          int edits,
                          std::mt19937_64* rng);

}  // namespace fuzz
}  // namespace paddle_lite
