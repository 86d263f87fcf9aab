// A Scope maps names to Variables and falls back to its parent on lookup.
// Weights live in a root scope that predictor clones share read-only; each
// predictor runs in its own child scope.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "framework/variable.h"

namespace paddle_lite {
namespace framework {

class Scope {
 public:
  Scope() = default;
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

  /// The variable named `name` in this scope, created if absent.
  Variable* Var(const std::string& name);
  /// Finds `name` here or in an ancestor; nullptr if absent.
  Variable* FindVar(const std::string& name) const;
  /// Finds `name` in this scope only.
  Variable* FindLocalVar(const std::string& name) const;
  /// A child scope owned by this one (freed with it or by DeleteScope).
  Scope& NewScope() const;
  void DeleteScope(Scope* child) const;
  void DropKids() const;

  const Scope* parent() const { return parent_; }
  /// Unique to this scope in the process: unlike its address, never that
  /// of a scope gone before (the executor keeps what it resolved in the
  /// scope it last ran in).
  uint64_t id() const { return id_; }
  std::vector<std::string> LocalVarNames() const;

  /// Whether `var` is the variable `name` of this scope's root, seen from
  /// a scope below it (a predictor's weights, which its clones share).
  bool IsRootVariable(const std::string& name, const Variable* var) const;

 private:
  explicit Scope(const Scope* parent) : parent_(parent) {}
  static uint64_t NextId();

  std::unordered_map<std::string, std::unique_ptr<Variable>> vars_;
  const Scope* parent_ = nullptr;
  const uint64_t id_ = NextId();
  mutable std::list<Scope*> kids_;
  mutable std::mutex kids_mu_;
};

}  // namespace framework
}  // namespace paddle_lite
