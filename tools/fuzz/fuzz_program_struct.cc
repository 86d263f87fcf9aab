// libFuzzer entry of the program struct fuzzer (see fuzz_targets.h).
#include "tools/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  paddle_lite::fuzz::FuzzProgram(data, size);
  return 0;
}

#ifdef PDLITE_LIBFUZZER
// Structure-aware: hostile values in a parsed program's ops, attributes and
// var descs; inputs that do not parse get libFuzzer's byte mutations.
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data,
                                          size_t size,
                                          size_t max_size,
                                          unsigned int seed) {
  size_t mutated =
      paddle_lite::fuzz::MutateProgramBytes(data, size, max_size, seed);
  return mutated ? mutated : LLVMFuzzerMutate(data, size, max_size);
}
#endif  // PDLITE_LIBFUZZER
