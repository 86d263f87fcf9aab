// The op registry: op type -> its proto (slots, attributes) and a creator.
// An op file registers itself as its last statement:
//
//   REGISTER_OPERATOR(relu, ReluOp, ReluOpMaker);
//
// Creating an op checks the program's op against the proto: unknown slots
// are rejected, missing attributes get their defaults, attributes the
// proto does not know (op_callstack, backend extras) are kept.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include "framework/operator.h"

namespace paddle_lite {
namespace framework {

struct OpInfo {
  OpProto proto;
  std::function<std::unique_ptr<OperatorBase>(
      const std::string&, VarNameMap, VarNameMap, AttributeMap)>
      creator;
  std::string file;      // __FILE__ of the registration
  std::string registrant;  // "core" or the plugin's path
};

class OpInfoMap {
 public:
  static OpInfoMap& Instance();
  /// Throws AlreadyExists naming the op and both files on a second
  /// registration of the same type.
  void Insert(const std::string& type, OpInfo info);
  /// Throws what Insert would if `type` is registered already.
  void CheckAbsent(const std::string& type, const OpInfo& info) const;
  void Erase(const std::string& type);
  const OpInfo* Find(const std::string& type) const;
  std::vector<std::string> Types() const;

 private:
  void CheckAbsentLocked(const std::string& type, const OpInfo& info) const;
  // Plugins insert and erase ops while predictors create theirs.
  mutable std::shared_mutex mutex_;
  std::map<std::string, std::unique_ptr<OpInfo>> map_;
};

/// Creates an op from a program's OpDesc; throws NotFound if the type is
/// not registered and InvalidArgument (naming op and attribute or slot) if
/// the desc does not fit the proto.
std::unique_ptr<OperatorBase> CreateOp(const OpDesc& desc);

/// Who is registering right now: "core" during static initialization,
/// a plugin's path while it loads.
const std::string& CurrentRegistrant();
void SetCurrentRegistrant(const std::string& name);

/// While a plugin loads, registrations are held here and applied only
/// after its ABI is checked (framework/plugin.cc); empty otherwise.
struct PendingRegistrations {
  bool deferring = false;
  std::vector<std::pair<std::string, OpInfo>> ops;
  // Each registers one kernel, or with `true` only checks that its key is
  // free (throwing as registering would).
  std::vector<std::function<void(bool check_only)>> kernels;
};
PendingRegistrations& Pending();

void RegisterOperatorOrDie(const std::string& type, OpInfo info);

template <typename OpClass, typename MakerClass>
struct OperatorRegistrar {
  OperatorRegistrar(const char* type, const char* file) {
    OpInfo info;
    MakerClass maker;
    info.proto = maker.Build(type);
    info.creator = [](const std::string& t, VarNameMap in, VarNameMap out,
                      AttributeMap attrs) -> std::unique_ptr<OperatorBase> {
      return std::make_unique<OpClass>(t, std::move(in), std::move(out),
                                       std::move(attrs));
    };
    info.file = file;
    RegisterOperatorOrDie(type, std::move(info));
  }
};

}  // namespace framework
}  // namespace paddle_lite

/// Registers op `op_type` with its class (constructor takes type, inputs,
/// outputs, attrs: inherit OperatorWithKernel's) and its Maker.
#define REGISTER_OPERATOR(op_type, OpClass, MakerClass)                    \
  static ::paddle_lite::framework::OperatorRegistrar<OpClass, MakerClass>  \
      pdlite_op_registrar_##op_type(#op_type, __FILE__)
