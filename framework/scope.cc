#include "framework/scope.h"

#include <algorithm>
#include <atomic>
#include <typeinfo>

#include "framework/variable.h"

namespace paddle_lite {
namespace framework {

void Variable::CheckType(const std::type_info& requested) const {
  PADDLE_ENFORCE(holder_ != nullptr, platform::errors::PreconditionNotMet(
                                         "Variable is not initialized."));
  PADDLE_ENFORCE(*type_ == requested,
                 platform::errors::PreconditionNotMet(
                     "Variable holds ", type_->name(), " but was asked for ",
                     requested.name(), "."));
}

Scope::~Scope() { DropKids(); }

uint64_t Scope::NextId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

Variable* Scope::Var(const std::string& name) {
  auto it = vars_.find(name);
  if (it != vars_.end()) return it->second.get();
  auto* var = new Variable();
  vars_.emplace(name, std::unique_ptr<Variable>(var));
  return var;
}

Variable* Scope::FindLocalVar(const std::string& name) const {
  auto it = vars_.find(name);
  return it == vars_.end() ? nullptr : it->second.get();
}

Variable* Scope::FindVar(const std::string& name) const {
  for (const Scope* s = this; s != nullptr; s = s->parent_) {
    if (auto* v = s->FindLocalVar(name)) return v;
  }
  return nullptr;
}

Scope& Scope::NewScope() const {
  std::lock_guard<std::mutex> lock(kids_mu_);
  kids_.push_back(new Scope(this));
  return *kids_.back();
}

void Scope::DeleteScope(Scope* child) const {
  std::lock_guard<std::mutex> lock(kids_mu_);
  auto it = std::find(kids_.begin(), kids_.end(), child);
  PADDLE_ENFORCE(it != kids_.end(),
                 platform::errors::NotFound(
                     "DeleteScope: the scope is not a child of this one."));
  kids_.erase(it);
  delete child;
}

void Scope::DropKids() const {
  std::lock_guard<std::mutex> lock(kids_mu_);
  for (Scope* kid : kids_) delete kid;
  kids_.clear();
}

std::vector<std::string> Scope::LocalVarNames() const {
  std::vector<std::string> names;
  names.reserve(vars_.size());
  for (auto& kv : vars_) names.push_back(kv.first);
  std::sort(names.begin(), names.end());
  return names;
}

bool Scope::IsRootVariable(const std::string& name, const Variable* var) const {
  if (parent_ == nullptr || var == nullptr) return false;
  const Scope* root = this;
  while (root->parent_ != nullptr) root = root->parent_;
  return var == root->FindLocalVar(name);
}

}  // namespace framework
}  // namespace paddle_lite
