// Graph passes: rewrites of a loaded program (and its weights) before it is
// prepared, each numerically equivalent. A pass lives in
// framework/passes/<name>.cc and registers itself:
//
//   REGISTER_PASS(fold_batch_norm_into_conv, FoldBatchNormPass, 200);
//
// The number orders the default pipeline (lower runs first).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "framework/program_desc.h"
#include "framework/scope.h"
#include "platform/place.h"

namespace paddle_lite {
namespace framework {

class Pass {
 public:
  virtual ~Pass() = default;
  /// Rewrites block 0 of `program` (sub-blocks must be left alone unless
  /// the pass knows them), reading and adding weights in `weights`.
  /// Returns one line per change ("fused conv2d #12 + relu #13").
  virtual std::vector<std::string> Apply(ProgramDesc* program,
                                         Scope* weights) const = 0;
  /// Op types the pass introduces (fused ops). A predictor on a device
  /// with no kernel for one of them skips the pass, so fusion never pulls
  /// work off the device onto the CPU.
  virtual std::vector<std::string> CreatedOpTypes() const { return {}; }
};

struct PassInfo {
  std::string name;
  int order = 0;
  std::function<std::unique_ptr<Pass>()> create;
  std::string file;
};

class PassRegistry {
 public:
  static PassRegistry& Instance();
  /// Throws AlreadyExists on a second pass of the same name.
  void Register(PassInfo info);
  const PassInfo* Find(const std::string& name) const;
  /// Every pass, in pipeline order.
  std::vector<const PassInfo*> All() const;

 private:
  std::vector<std::unique_ptr<PassInfo>> passes_;
};

struct PassReport {
  std::string pass;
  // For the target place (see CreatedOpTypes), or because the program
  // writes a weight (WrittenWeights); `changes` says why.
  bool skipped = false;
  std::vector<std::string> changes;
  int ops_before = 0;
  int ops_after = 0;
};

/// Runs the named passes (all registered ones, in order, when `names` is
/// empty) and says what each changed. Passes whose created op types have no
/// kernel on `place`'s kind are skipped (reported as such); all are, with a
/// warning, for a program that writes one of its weights (they fold
/// weights' loaded values).
std::vector<PassReport> ApplyPasses(
    ProgramDesc* program, Scope* weights,
    const std::vector<std::string>& names = {},
    const platform::Place& place = platform::CPUPlace{});

template <typename PassClass>
struct PassRegistrar {
  PassRegistrar(const char* name, int order, const char* file) {
    PassRegistry::Instance().Register(
        PassInfo{name, order, [] { return std::make_unique<PassClass>(); },
                 file});
  }
};

// ---- helpers passes share -------------------------------------------------

/// Ops of block 0 that read variable `name`, by index.
std::vector<int> ConsumersOf(const BlockDesc& block, const std::string& name);
/// Index of the op of block 0 that writes `name` (-1 if none, the last one
/// if several).
int ProducerOf(const BlockDesc& block, const std::string& name);
/// True if `name` is fetched (an output of the model) or persistable.
bool IsPinned(const BlockDesc& block, const std::string& name);
/// Replaces every read of `from` by `to` in ops after index `after`.
void RenameInput(BlockDesc* block, const std::string& from,
                 const std::string& to, int after = -1);
/// Removes the ops at the given indexes (any order) and the declarations of
/// variables no op uses any more.
void RemoveOps(BlockDesc* block, std::vector<int> indexes);

}  // namespace framework
}  // namespace paddle_lite

#define REGISTER_PASS(name, PassClass, order)                    \
  static ::paddle_lite::framework::PassRegistrar<PassClass>      \
      pdlite_pass_registrar_##name(#name, order, __FILE__)
