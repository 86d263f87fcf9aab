#include "framework/op_registry.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <iterator>

namespace paddle_lite {
namespace framework {

OpInfoMap& OpInfoMap::Instance() {
  static OpInfoMap* map = new OpInfoMap;  // leaked: used at exit by plugins
  return *map;
}

void OpInfoMap::CheckAbsentLocked(const std::string& type,
                                  const OpInfo& info) const {
  auto it = map_.find(type);
  PADDLE_ENFORCE(it == map_.end(),
                 errors::AlreadyExists(
                     "Op '", type, "' is registered twice: by ",
                     it == map_.end() ? "" : it->second->registrant, " (",
                     it == map_.end() ? "" : it->second->file, ") and by ",
                     info.registrant, " (", info.file, ")."));
}

void OpInfoMap::CheckAbsent(const std::string& type, const OpInfo& info) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  CheckAbsentLocked(type, info);
}

void OpInfoMap::Insert(const std::string& type, OpInfo info) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  CheckAbsentLocked(type, info);
  map_[type] = std::make_unique<OpInfo>(std::move(info));
}

void OpInfoMap::Erase(const std::string& type) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  map_.erase(type);
}

const OpInfo* OpInfoMap::Find(const std::string& type) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  auto it = map_.find(type);
  return it == map_.end() ? nullptr : it->second.get();
}

std::vector<std::string> OpInfoMap::Types() const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  std::vector<std::string> types;
  for (auto& kv : map_) types.push_back(kv.first);
  return types;
}

namespace {
std::string& RegistrantSlot() {
  static std::string* name = new std::string("core");
  return *name;
}
}  // namespace

const std::string& CurrentRegistrant() { return RegistrantSlot(); }
void SetCurrentRegistrant(const std::string& name) { RegistrantSlot() = name; }

PendingRegistrations& Pending() {
  static PendingRegistrations* pending = new PendingRegistrations;
  return *pending;
}

void RegisterOperatorOrDie(const std::string& type, OpInfo info) {
  info.registrant = CurrentRegistrant();
  if (Pending().deferring) {
    Pending().ops.emplace_back(type, std::move(info));
    return;
  }
  try {
    OpInfoMap::Instance().Insert(type, std::move(info));
  } catch (const Exception& e) {
    if (CurrentRegistrant() != "core") throw;  // a plugin load reports it
    std::cerr << "paddle_lite: " << e.what() << std::endl;
    std::abort();
  }
}

struct OpRegistryAccess {
  static void SetInfo(OperatorBase* op, const OpInfo* info) {
    op->info_ = info;
  }
};

std::unique_ptr<OperatorBase> CreateOp(const OpDesc& desc) {
  const OpInfo* info = OpInfoMap::Instance().Find(desc.type);
  PADDLE_ENFORCE(info != nullptr,
                 errors::NotFound("Op type '", desc.type,
                                  "' is not registered: no definition of it "
                                  "is built in or loaded from a plugin."));
  const OpProto& proto = info->proto;
  auto check_slots = [&](const VarNameMap& given,
                         const std::vector<OpSlotProto>& declared,
                         const char* what) {
    for (auto& kv : given) {
      const OpSlotProto* slot = nullptr;
      for (auto& d : declared) {
        if (d.name == kv.first) slot = &d;
      }
      // Newer Paddle writes slots it added as empty lists (Paddle 3's
      // scale has BiasTensor): an empty slot says nothing and is dropped
      // below; one that names variables would be lost, so it is refused.
      if (slot == nullptr && kv.second.empty()) continue;
      PADDLE_ENFORCE(slot != nullptr,
                     errors::InvalidArgument("Op '", desc.type, "' has no ",
                                             what, " slot '", kv.first,
                                             "'."));
      PADDLE_ENFORCE(slot->duplicable || kv.second.size() <= 1,
                     errors::InvalidArgument(
                         "Op '", desc.type, "': ", what, " slot '", kv.first,
                         "' takes one variable but lists ", kv.second.size(),
                         "."));
    }
    for (auto& d : declared) {
      if (d.dispensable) continue;
      auto* args = FindSlot(given, d.name);
      PADDLE_ENFORCE(args != nullptr && !args->empty(),
                     errors::InvalidArgument("Op '", desc.type,
                                             "' is missing its ", what,
                                             " '", d.name, "'."));
    }
  };
  check_slots(desc.inputs, proto.inputs, "input");
  check_slots(desc.outputs, proto.outputs, "output");
  auto declared_only = [](VarNameMap slots,
                          const std::vector<OpSlotProto>& declared) {
    for (auto it = slots.begin(); it != slots.end();) {
      const bool known = std::any_of(
          declared.begin(), declared.end(),
          [&](const OpSlotProto& d) { return d.name == it->first; });
      it = known ? std::next(it) : slots.erase(it);
    }
    return slots;
  };

  AttributeMap attrs = desc.attrs;
  for (auto& a : proto.attrs) {
    auto it = attrs.find(a.name);
    if (it == attrs.end()) {
      PADDLE_ENFORCE(a.default_value.has_value(),
                     errors::InvalidArgument("Op '", desc.type,
                                             "' needs attribute '", a.name,
                                             "', which the program does not "
                                             "set."));
      attrs.emplace(a.name, *a.default_value);
      continue;
    }
    try {
      for (auto& check : a.checkers) check(it->second);
    } catch (const Exception& e) {
      platform::RethrowWithContext(e, "Op '" + desc.type + "': ");
    }
  }
  auto op = info->creator(desc.type, declared_only(desc.inputs, proto.inputs),
                          declared_only(desc.outputs, proto.outputs),
                          std::move(attrs));
  OpRegistryAccess::SetInfo(op.get(), info);
  return op;
}

}  // namespace framework
}  // namespace paddle_lite
