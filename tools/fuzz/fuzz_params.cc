// libFuzzer entry of the params fuzzer (see fuzz_targets.h).
#include "tools/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  paddle_lite::fuzz::FuzzParams(data, size);
  return 0;
}
