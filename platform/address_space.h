// How much address space the process may still map, for code that must
// not start what a failed mapping would turn into a crash.
#pragma once

#include <cstddef>

namespace paddle_lite {
namespace platform {

/// Bytes the process may still map under its limit on the address space
/// (ulimit -v, RLIMIT_AS), or SIZE_MAX when it has none.
size_t AddressSpaceLeft();

}  // namespace platform
}  // namespace paddle_lite
