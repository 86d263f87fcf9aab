#include "framework/plugin.h"

#include <cxxabi.h>
#include <dirent.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <sstream>

#include "framework/kernel_registry.h"
#include "framework/model_io.h"
#include "framework/op_registry.h"
#include "platform/device_context.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace framework {

namespace {

std::mutex& PluginMutex() {
  static std::mutex* mu = new std::mutex;
  return *mu;
}

std::vector<std::string>& Loaded() {
  static auto* loaded = new std::vector<std::string>;
  return *loaded;
}

// Forgets what a plugin queued, and queues no more.
void ClearPending() {
  auto& pending = Pending();
  pending.deferring = false;
  pending.ops.clear();
  pending.kernels.clear();
}

// Throws what CommitPending would for a key registered already, without
// registering anything: checked before the plugin's init runs, so that
// registering after it succeeds does not fail for that.
void CheckPending() {
  for (auto& [type, info] : Pending().ops) {
    OpInfoMap::Instance().CheckAbsent(type, info);
  }
  for (auto& add : Pending().kernels) add(true);
}

// Registers what the plugin's static initializers (and its init) queued;
// on any error, takes back what it registered and rethrows.
void CommitPending(const std::string& path) {
  auto& pending = Pending();
  std::vector<std::string> added_ops;
  try {
    for (auto& kv : pending.ops) {
      OpInfoMap::Instance().Insert(kv.first, kv.second);
      added_ops.push_back(kv.first);
    }
    for (auto& add : pending.kernels) add(false);
  } catch (...) {
    for (auto& type : added_ops) OpInfoMap::Instance().Erase(type);
    KernelRegistry::Instance().EraseRegistrant(path);
    ClearPending();
    throw;
  }
  ClearPending();
}

// The key a plugin is known by: "./x.so", "dir/../x.so" and a symlink name
// the same file, which must load once. Left as given when it does not
// exist (dlopen then reports it).
std::string CanonicalPath(const std::string& path) {
  char* resolved = realpath(path.c_str(), nullptr);
  if (resolved == nullptr) return path;
  std::string canonical = resolved;
  free(resolved);
  return canonical;
}

}  // namespace

int RuntimeAbiVersion() { return PDLITE_ABI_VERSION; }

void LoadPlugin(const std::string& given_path) {
  const std::string path = CanonicalPath(given_path);
  std::lock_guard<std::mutex> lock(PluginMutex());
  auto& loaded = Loaded();
  if (std::find(loaded.begin(), loaded.end(), path) != loaded.end()) return;

  // The plugin's registration macros run inside dlopen; hold them until
  // its ABI version is known to match.
  auto& pending = Pending();
  pending.deferring = true;
  SetCurrentRegistrant(path);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  pending.deferring = false;
  SetCurrentRegistrant("core");
  auto discard = [handle] {
    ClearPending();
    if (handle) dlclose(handle);
  };
  if (handle == nullptr) {
    const char* why = dlerror();
    discard();
    PADDLE_THROW(errors::NotFound("Cannot load plugin '", path,
                                  "': ", why ? why : "unknown error", "."));
  }
  using VersionFn = int (*)();
  using NameFn = const char* (*)();
  using InitFn = void (*)();
  auto version =
      reinterpret_cast<VersionFn>(dlsym(handle, "pdlite_plugin_abi_version"));
  auto name = reinterpret_cast<NameFn>(dlsym(handle, "pdlite_plugin_name"));
  auto init = reinterpret_cast<InitFn>(dlsym(handle, "pdlite_plugin_init"));
  if (version == nullptr || name == nullptr) {
    discard();
    PADDLE_THROW(errors::PreconditionNotMet(
        "'", path,
        "' is not a paddle_lite plugin: it does not define "
        "PDLITE_PLUGIN(name) (framework/plugin.h)."));
  }
  int plugin_abi = version();
  if (plugin_abi != PDLITE_ABI_VERSION) {
    std::string plugin_name = name();
    discard();
    PADDLE_THROW(errors::PreconditionNotMet(
        "Plugin '", plugin_name, "' (", path, ") was built for ABI version ",
        plugin_abi, " but this runtime has ABI version ", PDLITE_ABI_VERSION,
        "; rebuild it against the installed paddle_lite headers."));
  }
  // Its ops and kernels are registered only once its init has succeeded:
  // registered before, a predictor made meanwhile on another thread could
  // choose kernels that a failed init then takes back with the library.
  // What the init itself registers waits with them. What its init threw
  // is taken in while the library is still loaded: an exception class of
  // its own has its type, what() and destructor in the plugin's code.
  bool failed = true;
  bool initialized = false;
  ErrorCode failure_code = ErrorCode::kPreconditionNotMet;
  std::string failure;
  try {
    CheckPending();
    if (init) {
      SetCurrentRegistrant(path);
      pending.deferring = true;
      init();
      pending.deferring = false;
      SetCurrentRegistrant("core");
    }
    initialized = true;
    CommitPending(path);
    failed = false;
  } catch (const abi::__forced_unwind&) {
    ClearPending();
    SetCurrentRegistrant("core");
    throw;  // the thread is being cancelled: not the plugin's failure
  } catch (const Exception& e) {
    failure_code = e.code();
    failure = e.message();
  } catch (const std::exception& e) {
    failure = std::string("its init threw ") + e.what();
  } catch (...) {
    failure = "its init threw an exception of unknown type";
  }
  if (failed) {
    ClearPending();
    SetCurrentRegistrant("core");
    // Nothing of it is registered (CommitPending takes back what it
    // registered before failing). Once its init ran, what the init set up
    // (an allocator, copies) may point into its code: the library stays.
    if (!initialized) dlclose(handle);
    throw Exception(failure_code, "Plugin '" + path + "' refused: " + failure);
  }
  loaded.push_back(path);
}

void LoadPluginsFromEnvironment() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* env = std::getenv("PDLITE_PLUGIN_PATH");
    if (env == nullptr || *env == '\0') return;
    std::stringstream dirs(env);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      if (dir.empty()) continue;
      DIR* d = opendir(dir.c_str());
      if (d == nullptr) continue;
      std::vector<std::string> files;
      while (dirent* e = readdir(d)) {
        std::string f = e->d_name;
        if (f.size() > 3 && f.compare(f.size() - 3, 3, ".so") == 0) {
          files.push_back(dir + "/" + f);
        }
      }
      closedir(d);
      std::sort(files.begin(), files.end());
      for (auto& f : files) LoadPlugin(f);
    }
  });
}

std::vector<std::string> LoadedPlugins() {
  std::lock_guard<std::mutex> lock(PluginMutex());
  return Loaded();
}

std::string CudaLibraryPath() {
  const char* env = std::getenv("PDLITE_CUDA_LIBRARY");
  if (env != nullptr && *env != '\0') return env;
  // Beside the core library, in the build tree and when installed.
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&RuntimeAbiVersion), &info) != 0 &&
      info.dli_fname != nullptr) {
    std::string self = info.dli_fname;
    size_t slash = self.rfind('/');
    if (slash != std::string::npos) {
      return self.substr(0, slash + 1) + "libpaddle_lite_cuda.so";
    }
  }
  return "libpaddle_lite_cuda.so";
}

void EnsurePlaceAvailable(const platform::Place& place) {
  if (place.is_cpu()) return;
  if (place.is_cuda() || place.is_cuda_pinned()) {
    if (platform::HasDeviceContextFactory("cuda")) return;
    const std::string path = CudaLibraryPath();
    PADDLE_ENFORCE(IsFile(path),
                   errors::Unavailable(
                       place,
                       " was asked for, but this build has no CUDA "
                       "place: ",
                       path,
                       " does not exist (configure with "
                       "-DPDLITE_WITH_CUDA=ON where nvcc, cuDNN and cuBLAS "
                       "are installed, or set PDLITE_CUDA_LIBRARY)."));
    LoadPlugin(path);
    return;
  }
  PADDLE_ENFORCE(
      platform::HasDeviceContextFactory(place.KindName()),
      errors::NotFound("No device context is registered for "
                       "place ",
                       place, ": load the plugin that provides it."));
}

std::vector<std::string> LoadBuiltinDeviceLibraries() {
  std::vector<std::string> loaded;
  if (!platform::HasDeviceContextFactory("cuda")) {
    const std::string path = CudaLibraryPath();
    if (!IsFile(path)) return loaded;
    LoadPlugin(path);
    loaded.push_back(path);
  }
  return loaded;
}

}  // namespace framework
}  // namespace paddle_lite
