#include "platform/address_space.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

namespace paddle_lite {
namespace platform {

bool AddressSpaceLimited() {
  struct rlimit limit;
  return getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY;
}

size_t AddressSpaceMapped() {
  // The first field of statm: the pages mapped now.
  size_t pages = 0;
  FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return 0;
  const bool read = std::fscanf(statm, "%zu", &pages) == 1;
  std::fclose(statm);
  return read ? pages * static_cast<size_t>(sysconf(_SC_PAGESIZE)) : 0;
}

size_t AddressSpaceLeft() {
  struct rlimit limit;
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) {
    return SIZE_MAX;
  }
  const size_t mapped = AddressSpaceMapped();
  if (mapped == 0) return SIZE_MAX;
  return limit.rlim_cur > mapped ? limit.rlim_cur - mapped : 0;
}

}  // namespace platform
}  // namespace paddle_lite
