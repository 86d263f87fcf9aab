#include "framework/kernel_registry.h"

#include <cctype>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <sstream>
#include <tuple>

#include "framework/op_registry.h"

namespace paddle_lite {
namespace framework {

namespace {
struct LibraryNames {
  std::mutex mu;
  std::vector<std::string> names{"PLAIN", "MKLDNN", "CUDNN"};
};
LibraryNames& Libraries() {
  static LibraryNames* libs = new LibraryNames;
  return *libs;
}
// The id of `name`, or -1; with libs.mu held.
int IdOf(const LibraryNames& libs, const std::string& name) {
  for (size_t i = 0; i < libs.names.size(); ++i) {
    if (libs.names[i] == name) return static_cast<int>(i);
  }
  return -1;
}
}  // namespace

LibraryType LibraryType::FromName(const std::string& name) {
  PADDLE_ENFORCE(!name.empty(),
                 errors::InvalidArgument("A library name cannot be empty."));
  for (char c : name) {
    PADDLE_ENFORCE(std::isupper(static_cast<unsigned char>(c)) ||
                       std::isdigit(static_cast<unsigned char>(c)) || c == '_',
                   errors::InvalidArgument(
                       "Library name '", name,
                       "' must be upper-case letters, digits and '_'."));
  }
  auto& libs = Libraries();
  std::lock_guard<std::mutex> lock(libs.mu);
  const int id = IdOf(libs, name);
  if (id >= 0) return LibraryType(id);
  libs.names.push_back(name);
  return LibraryType(static_cast<int>(libs.names.size() - 1));
}

LibraryType LibraryType::FromPreferredName(const std::string& name) {
  std::string known;
  {
    auto& libs = Libraries();
    std::lock_guard<std::mutex> lock(libs.mu);
    const int id = IdOf(libs, name);
    if (id >= 0) return LibraryType(id);
    // Copied under the lock: a plugin loading on another thread may add a
    // name (and move the others) meanwhile.
    for (const std::string& n : libs.names) {
      known += (known.empty() ? "" : ", ") + n;
    }
  }
  PADDLE_THROW(errors::InvalidArgument("No kernel library is named '", name,
                                       "' (known: ", known,
                                       "; PLAIN is always the fallback)."));
}

std::vector<LibraryType> LibraryType::All() {
  auto& libs = Libraries();
  std::lock_guard<std::mutex> lock(libs.mu);
  std::vector<LibraryType> all;
  for (size_t i = 0; i < libs.names.size(); ++i) {
    all.push_back(LibraryType(static_cast<int>(i)));
  }
  return all;
}

const std::string& LibraryType::name() const {
  auto& libs = Libraries();
  std::lock_guard<std::mutex> lock(libs.mu);
  return libs.names[id_];
}

namespace {
auto KeyTuple(const OpKernelType& k) {
  return std::make_tuple(static_cast<int>(k.data_type), k.place.KindName(),
                         static_cast<int>(k.layout), k.library.id());
}
}  // namespace

bool OpKernelType::operator==(const OpKernelType& o) const {
  return KeyTuple(*this) == KeyTuple(o);
}

bool OpKernelType::operator<(const OpKernelType& o) const {
  return KeyTuple(*this) < KeyTuple(o);
}

std::string OpKernelType::ToString() const {
  std::ostringstream os;
  os << "{" << DataTypeName(data_type) << ", " << place.KindName() << ", "
     << DataLayoutName(layout) << ", " << library.name() << "}";
  return os.str();
}

size_t OpKernelTypeHash::operator()(const OpKernelType& key) const {
  size_t h = std::hash<std::string>()(key.place.KindName());
  h = h * 31 + static_cast<size_t>(key.data_type);
  h = h * 31 + static_cast<size_t>(key.layout);
  h = h * 31 + static_cast<size_t>(key.library.id());
  return h;
}

KernelRegistry& KernelRegistry::Instance() {
  static KernelRegistry* registry = new KernelRegistry;
  return *registry;
}

void KernelRegistry::Register(const std::string& op_type,
                              const OpKernelType& key,
                              KernelEntry entry) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  CheckAbsentLocked(op_type, key, entry);
  kernels_[op_type].emplace(key,
                            std::make_unique<KernelEntry>(std::move(entry)));
}

void KernelRegistry::CheckAbsent(const std::string& op_type,
                                 const OpKernelType& key,
                                 const KernelEntry& entry) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  CheckAbsentLocked(op_type, key, entry);
}

void KernelRegistry::CheckAbsentLocked(const std::string& op_type,
                                       const OpKernelType& key,
                                       const KernelEntry& entry) const {
  auto op = kernels_.find(op_type);
  if (op == kernels_.end()) return;
  auto it = op->second.find(key);
  PADDLE_ENFORCE(it == op->second.end(),
                 errors::AlreadyExists(
                     "Kernel ", key.ToString(), " of op '", op_type,
                     "' is registered twice: by ",
                     it == op->second.end() ? "" : it->second->registrant, " (",
                     it == op->second.end() ? "" : it->second->file,
                     ") and by ", entry.registrant, " (", entry.file, ")."));
}

void KernelRegistry::EraseRegistrant(const std::string& registrant) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  for (auto op = kernels_.begin(); op != kernels_.end();) {
    for (auto k = op->second.begin(); k != op->second.end();) {
      k = k->second->registrant == registrant ? op->second.erase(k)
                                              : std::next(k);
    }
    op = op->second.empty() ? kernels_.erase(op) : std::next(op);
  }
}

void KernelRegistry::Erase(const std::string& op_type,
                           const OpKernelType& key) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  auto op = kernels_.find(op_type);
  if (op == kernels_.end()) return;
  op->second.erase(key);
  if (op->second.empty()) kernels_.erase(op);
}

const KernelEntry* KernelRegistry::Find(const std::string& op_type,
                                        const OpKernelType& key) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  auto op = kernels_.find(op_type);
  if (op == kernels_.end()) return nullptr;
  auto k = op->second.find(key);
  return k == op->second.end() ? nullptr : k->second.get();
}

std::vector<std::pair<OpKernelType, const KernelEntry*>>
KernelRegistry::KernelsOf(const std::string& op_type) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  std::vector<std::pair<OpKernelType, const KernelEntry*>> out;
  auto op = kernels_.find(op_type);
  if (op == kernels_.end()) return out;
  for (auto& kv : op->second) out.emplace_back(kv.first, kv.second.get());
  return out;
}

std::vector<std::string> KernelRegistry::OpTypes() const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  std::vector<std::string> types;
  for (auto& kv : kernels_) types.push_back(kv.first);
  return types;
}

void RegisterKernelOrDie(const std::string& op_type,
                         const OpKernelType& key,
                         KernelFn fn,
                         const char* file) {
  KernelEntry entry{std::move(fn), file, CurrentRegistrant()};
  if (Pending().deferring) {
    Pending().kernels.push_back([op_type, key, entry](bool check_only) {
      if (check_only) {
        KernelRegistry::Instance().CheckAbsent(op_type, key, entry);
      } else {
        KernelRegistry::Instance().Register(op_type, key, entry);
      }
    });
    return;
  }
  try {
    KernelRegistry::Instance().Register(op_type, key, std::move(entry));
  } catch (const Exception& e) {
    if (CurrentRegistrant() != "core") throw;  // a plugin load reports it
    std::cerr << "paddle_lite: " << e.what() << std::endl;
    std::abort();
  }
}

bool KernelRegistry::HasLibraryOn(LibraryType library,
                                  const std::string& kind) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  for (auto& op : kernels_) {
    for (auto& kv : op.second) {
      if (kv.first.library == library && kv.first.place.KindName() == kind) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace framework
}  // namespace paddle_lite
