// Plugins: shared libraries that add ops, kernels, kernel libraries and
// whole devices at run time, registering with the same macros as in-tree
// code. A plugin's source says who it is once:
//
//   #include "framework/plugin.h"
//   PDLITE_PLUGIN(my_plugin);
//
// and, when it registers a device (or anything else not done by a
// registration macro), also
//
//   PDLITE_PLUGIN_INIT() {
//     platform::RegisterAllocatorFactory("emu", ...);
//   }
//
// Loading checks the plugin was built for this runtime's ABI before any of
// its registrations take effect; a mismatch, or a key another plugin (or
// the core) already registered, refuses the whole plugin with an error
// naming both sides, and leaves the registries as they were.
#pragma once

#include <string>
#include <vector>

#include "platform/place.h"

/// Bumped whenever a change to the installed headers breaks plugins built
/// against an older runtime. A plugin records the value it was built with.
#ifndef PDLITE_ABI_VERSION
#define PDLITE_ABI_VERSION 3
#endif

namespace paddle_lite {
namespace framework {

/// Loads a plugin (idempotent per path). Throws NotFound if it cannot be
/// opened, PreconditionNotMet if it is not a plugin or its ABI differs,
/// AlreadyExists if it registers a key that exists.
void LoadPlugin(const std::string& path);

/// Loads every `.so` in the ':'-separated folders of PDLITE_PLUGIN_PATH
/// (once per process).
void LoadPluginsFromEnvironment();

/// Paths of the plugins loaded so far, in load order.
std::vector<std::string> LoadedPlugins();

/// This runtime's ABI version (PDLITE_ABI_VERSION as the core was built).
int RuntimeAbiVersion();

/// Makes sure the place's device is provided: built-in devices that live
/// in their own library (the CUDA place, libpaddle_lite_cuda.so beside
/// libpaddle_lite.so, or PDLITE_CUDA_LIBRARY) are loaded on first use.
/// Throws Unavailable when this build has no such library, NotFound for a
/// device no plugin provides. Does not need the hardware itself.
void EnsurePlaceAvailable(const platform::Place& place);

/// Loads every built-in device library this build has (for listings such
/// as `pdlite kernels`); returns the paths loaded, and skips quietly what
/// the build does not have.
std::vector<std::string> LoadBuiltinDeviceLibraries();

/// Where the CUDA place's library is looked for.
std::string CudaLibraryPath();

}  // namespace framework
}  // namespace paddle_lite

#define PDLITE_PLUGIN(name)                                     \
  extern "C" __attribute__((visibility("default"))) int         \
  pdlite_plugin_abi_version() {                                 \
    return PDLITE_ABI_VERSION;                                  \
  }                                                             \
  extern "C" __attribute__((visibility("default"))) const char* \
  pdlite_plugin_name() {                                        \
    return #name;                                               \
  }

#define PDLITE_PLUGIN_INIT() \
  extern "C" __attribute__((visibility("default"))) void pdlite_plugin_init()
