// The kernel registry: for each op type, kernels keyed by OpKernelType
// (data type, place kind, layout, library). A kernel file registers itself
// as its last statement:
//
//   REGISTER_OP_KERNEL(relu, PLAIN, CPUPlace, ReluKernel<float>,
//                      ReluKernel<double>);
//
// one entry per element type. Libraries are names interned at run time
// ("PLAIN", "MKLDNN", "CUDNN" are built in), so plugins add their own.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include "framework/data_type.h"
#include "framework/operator.h"
#include "framework/tensor.h"
#include "platform/place.h"

namespace paddle_lite {
namespace framework {

/// A kernel library ("PLAIN", "MKLDNN", "CUDNN", or a plugin's). Cheap
/// value; compares by interned id.
class LibraryType {
 public:
  /// Interns `name` (upper-case letters, digits, '_'); the same name always
  /// gives the same library.
  static LibraryType FromName(const std::string& name);
  static LibraryType Plain() { return LibraryType(0); }
  static LibraryType MKLDNN() { return LibraryType(1); }
  static LibraryType CUDNN() { return LibraryType(2); }
  /// Every library interned so far.
  static std::vector<LibraryType> All();
  /// A library a caller asks to prefer (Config::SetKernelLibraries,
  /// `pdlite --libraries`): InvalidArgument naming the known ones unless
  /// `name` is built in or was registered under (a plugin's, loaded by
  /// then). A misspelt name would leave every op on the fallback.
  static LibraryType FromPreferredName(const std::string& name);

  const std::string& name() const;
  int id() const { return id_; }
  bool operator==(const LibraryType& o) const { return id_ == o.id_; }
  bool operator!=(const LibraryType& o) const { return id_ != o.id_; }
  bool operator<(const LibraryType& o) const { return id_ < o.id_; }

 private:
  explicit LibraryType(int id) : id_(id) {}
  int id_;
};

/// The key of a kernel. Places compare by kind: one kernel serves every
/// device of its kind.
struct OpKernelType {
  DataType data_type = DataType::kFloat32;
  platform::Place place;
  DataLayout layout = DataLayout::kAnyLayout;
  LibraryType library = LibraryType::Plain();

  bool operator==(const OpKernelType& o) const;
  bool operator<(const OpKernelType& o) const;
  /// "{float32, cpu, AnyLayout, PLAIN}".
  std::string ToString() const;
};

struct OpKernelTypeHash {
  size_t operator()(const OpKernelType& key) const;
};

using KernelFn = std::function<void(const ExecutionContext&)>;

struct KernelEntry {
  KernelFn fn;
  std::string file;        // __FILE__ of the registration
  std::string registrant;  // "core" or the plugin's path
};

class KernelRegistry {
 public:
  static KernelRegistry& Instance();

  /// Throws AlreadyExists naming the op, the key and both registrants.
  void Register(const std::string& op_type,
                const OpKernelType& key,
                KernelEntry entry);
  /// Throws what Register would if `key` of `op_type` is registered.
  void CheckAbsent(const std::string& op_type,
                   const OpKernelType& key,
                   const KernelEntry& entry) const;
  /// Removes every kernel a registrant added (plugin unload, tests).
  void EraseRegistrant(const std::string& registrant);
  void Erase(const std::string& op_type, const OpKernelType& key);

  /// Exact lookup; nullptr if absent.
  const KernelEntry* Find(const std::string& op_type,
                          const OpKernelType& key) const;
  /// All kernels of an op, in key order.
  std::vector<std::pair<OpKernelType, const KernelEntry*>> KernelsOf(
      const std::string& op_type) const;
  std::vector<std::string> OpTypes() const;
  /// True when `library` has at least one kernel on places of `kind`.
  bool HasLibraryOn(LibraryType library, const std::string& kind) const;

 private:
  void CheckAbsentLocked(const std::string& op_type,
                         const OpKernelType& key,
                         const KernelEntry& entry) const;
  // Plugins register kernels while predictors choose theirs. An entry
  // found stays valid: a plugin's are registered once its init succeeded
  // (LoadPlugin), and only erased if registering them failed part way.
  mutable std::shared_mutex mutex_;
  std::map<std::string, std::map<OpKernelType, std::unique_ptr<KernelEntry>>>
      kernels_;
};

/// Base of kernel classes: one instance per registered element type.
template <typename T>
class OpKernel {
 public:
  using ELEMENT_TYPE = T;
  virtual ~OpKernel() = default;
  virtual void Compute(const ExecutionContext& ctx) const = 0;
};

/// Registers and, on failure during static initialization, prints the
/// error and aborts (a duplicate in the core is a build bug).
void RegisterKernelOrDie(const std::string& op_type,
                         const OpKernelType& key,
                         KernelFn fn,
                         const char* file);

template <typename... Kernels>
struct OpKernelRegistrar {
  /// `place`: any device of the kernel's kind (the key compares kinds).
  OpKernelRegistrar(const char* op_type,
                    const char* library,
                    const platform::Place& place,
                    const char* file) {
    (RegisterOne<Kernels>(op_type, library, place, file), ...);
  }
  template <typename Kernel>
  static void RegisterOne(const char* op_type,
                          const char* library,
                          const platform::Place& place,
                          const char* file) {
    OpKernelType key;
    key.data_type = ToDataType<typename Kernel::ELEMENT_TYPE>();
    key.place = place;
    key.library = LibraryType::FromName(library);
    auto kernel = std::make_shared<Kernel>();
    RegisterKernelOrDie(
        op_type, key,
        [kernel](const ExecutionContext& ctx) { kernel->Compute(ctx); }, file);
  }
};

}  // namespace framework
}  // namespace paddle_lite

/// One kernel per element type for (op, library, place). PLACE is a type in
/// paddle_lite::platform (CPUPlace, CUDAPlace).
#define REGISTER_OP_KERNEL(op_type, LIBRARY, PLACE, ...)          \
  static ::paddle_lite::framework::OpKernelRegistrar<__VA_ARGS__> \
      pdlite_kernel_registrar_##op_type##_##LIBRARY##_##PLACE(    \
          #op_type, #LIBRARY, ::paddle_lite::platform::PLACE{}, __FILE__)

/// Kernels of a device a plugin adds (a CustomPlace of type DEVICE, a
/// string literal such as "emu").
#define REGISTER_OP_DEVICE_KERNEL(op_type, LIBRARY, DEVICE, ...)               \
  static ::paddle_lite::framework::OpKernelRegistrar<__VA_ARGS__>              \
      pdlite_kernel_registrar_##op_type##_##LIBRARY##_device(                  \
          #op_type, #LIBRARY, ::paddle_lite::platform::CustomPlace{DEVICE, 0}, \
          __FILE__)

#define REGISTER_OP_CPU_KERNEL(op_type, ...) \
  REGISTER_OP_KERNEL(op_type, PLAIN, CPUPlace, __VA_ARGS__)

#define REGISTER_OP_CUDA_KERNEL(op_type, ...) \
  REGISTER_OP_KERNEL(op_type, CUDNN, CUDAPlace, __VA_ARGS__)
