// libFuzzer entry of the npy fuzzer (see fuzz_targets.h).
#include "tools/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  paddle_lite::fuzz::FuzzNpy(data, size);
  return 0;
}
