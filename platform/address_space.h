// How much address space the process may still map, for code that must
// not start what a failed mapping would turn into a crash.
#pragma once

#include <cstddef>

namespace paddle_lite {
namespace platform {

/// Whether the process has a limit on its address space (ulimit -v,
/// RLIMIT_AS).
bool AddressSpaceLimited();

/// Bytes the process maps now (VmSize), or 0 when /proc/self/statm
/// cannot tell.
size_t AddressSpaceMapped();

/// Bytes the process may still map under that limit, or SIZE_MAX when it
/// has none, or when AddressSpaceMapped cannot tell.
size_t AddressSpaceLeft();

}  // namespace platform
}  // namespace paddle_lite
