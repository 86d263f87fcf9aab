// What each fuzzer does with one input, shared by the libFuzzer binaries
// (PDLITE_FUZZ builds) and the replay binaries that run the checked-in
// regression corpus in every build. Each returns normally on any input:
// a clean error is fine, a crash, a sanitizer report or a hang is a bug.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace paddle_lite {
namespace fuzz {

/// Program bytes: parse, validate, passes, then one run on small inputs
/// (parameters the program declares are made up: zeros of their dims).
void FuzzProgram(const uint8_t* data, size_t size);

/// Combined parameter bytes against a fixed program (the repo's demo
/// model, or PDLITE_FUZZ_MODEL's program).
void FuzzParams(const uint8_t* data, size_t size);

/// .npy bytes: parse.
void FuzzNpy(const uint8_t* data, size_t size);

/// The structure-aware mutator: parses `data` as a program (or starts
/// from an empty one), applies hostile edits drawn from `seed` and writes
/// the serialized result back; returns its size (0 if it exceeds
/// `max_size`).
size_t MutateProgramBytes(uint8_t* data,
                          size_t size,
                          size_t max_size,
                          unsigned int seed);

}  // namespace fuzz
}  // namespace paddle_lite
