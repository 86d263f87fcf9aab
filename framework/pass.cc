#include "framework/pass.h"

#include <glog/logging.h>

#include <algorithm>
#include <set>

#include "framework/kernel_registry.h"
#include "framework/program_validator.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace framework {

PassRegistry& PassRegistry::Instance() {
  static PassRegistry* registry = new PassRegistry;
  return *registry;
}

void PassRegistry::Register(PassInfo info) {
  PADDLE_ENFORCE(Find(info.name) == nullptr,
                 errors::AlreadyExists("Pass '", info.name,
                                       "' is registered twice (", info.file,
                                       ")."));
  passes_.push_back(std::make_unique<PassInfo>(std::move(info)));
}

const PassInfo* PassRegistry::Find(const std::string& name) const {
  for (auto& p : passes_) {
    if (p->name == name) return p.get();
  }
  return nullptr;
}

std::vector<const PassInfo*> PassRegistry::All() const {
  std::vector<const PassInfo*> all;
  for (auto& p : passes_) all.push_back(p.get());
  std::stable_sort(all.begin(), all.end(),
                   [](const PassInfo* a, const PassInfo* b) {
                     return a->order < b->order;
                   });
  return all;
}

namespace {
bool HasKernelOn(const std::string& op_type, const platform::Place& place) {
  for (auto& kv : KernelRegistry::Instance().KernelsOf(op_type)) {
    if (platform::SameKind(kv.first.place, place)) return true;
  }
  return false;
}
}  // namespace

std::vector<PassReport> ApplyPasses(ProgramDesc* program, Scope* weights,
                                    const std::vector<std::string>& names,
                                    const platform::Place& place) {
  std::vector<const PassInfo*> passes;
  if (names.empty()) {
    passes = PassRegistry::Instance().All();
  } else {
    for (auto& name : names) {
      const PassInfo* info = PassRegistry::Instance().Find(name);
      PADDLE_ENFORCE(info != nullptr,
                     errors::NotFound("No pass named '", name, "'."));
      passes.push_back(info);
    }
  }
  // Passes fold weights' loaded values into others (a batch norm into its
  // convolution's filter); a program that writes a weight reads other
  // values at run time, so it runs as written.
  const auto written = WrittenWeights(*program);
  const std::string writes_weight = written.empty()
                                        ? ""
                                        : "the program writes its weight '" +
                                              written.begin()->first + "' (" +
                                              written.begin()->second + ")";
  if (!written.empty() && !passes.empty()) {
    LOG(WARNING) << "graph passes skipped: " << writes_weight;
  }
  std::vector<PassReport> reports;
  for (const PassInfo* info : passes) {
    PassReport report;
    report.pass = info->name;
    report.ops_before = static_cast<int>(program->blocks[0].ops.size());
    if (!written.empty()) {
      report.skipped = true;
      report.changes.push_back("skipped: " + writes_weight);
      report.ops_after = report.ops_before;
      reports.push_back(std::move(report));
      continue;
    }
    auto pass = info->create();
    for (auto& type : pass->CreatedOpTypes()) {
      if (!HasKernelOn(type, place)) {
        report.skipped = true;
        report.changes.push_back("skipped: no '" + type + "' kernel on " +
                                 place.ToString());
      }
    }
    if (!report.skipped) report.changes = pass->Apply(program, weights);
    report.ops_after = static_cast<int>(program->blocks[0].ops.size());
    reports.push_back(std::move(report));
  }
  return reports;
}

std::vector<int> ConsumersOf(const BlockDesc& block, const std::string& name) {
  std::vector<int> out;
  for (size_t i = 0; i < block.ops.size(); ++i) {
    for (auto& kv : block.ops[i].inputs) {
      if (std::find(kv.second.begin(), kv.second.end(), name) !=
          kv.second.end()) {
        out.push_back(static_cast<int>(i));
        break;
      }
    }
  }
  return out;
}

int ProducerOf(const BlockDesc& block, const std::string& name) {
  int found = -1;
  for (size_t i = 0; i < block.ops.size(); ++i) {
    for (auto& kv : block.ops[i].outputs) {
      if (std::find(kv.second.begin(), kv.second.end(), name) !=
          kv.second.end()) {
        found = static_cast<int>(i);
      }
    }
  }
  return found;
}

bool IsPinned(const BlockDesc& block, const std::string& name) {
  const VarDesc* var = block.FindVar(name);
  if (var && var->persistable) return true;
  for (auto& op : block.ops) {
    if (op.type == "fetch" && op.Input("X") == std::vector<std::string>{name}) {
      return true;
    }
  }
  return false;
}

void RenameInput(BlockDesc* block, const std::string& from,
                 const std::string& to, int after) {
  for (size_t i = static_cast<size_t>(after + 1); i < block->ops.size(); ++i) {
    for (auto& kv : block->ops[i].inputs) {
      std::replace(kv.second.begin(), kv.second.end(), from, to);
    }
  }
}

void RemoveOps(BlockDesc* block, std::vector<int> indexes) {
  std::sort(indexes.begin(), indexes.end());
  indexes.erase(std::unique(indexes.begin(), indexes.end()), indexes.end());
  for (auto it = indexes.rbegin(); it != indexes.rend(); ++it) {
    block->ops.erase(block->ops.begin() + *it);
  }
  std::set<std::string> used;
  for (auto& op : block->ops) {
    for (auto* slots : {&op.inputs, &op.outputs}) {
      for (auto& kv : *slots) used.insert(kv.second.begin(), kv.second.end());
    }
  }
  block->vars.erase(
      std::remove_if(block->vars.begin(), block->vars.end(),
                     [&](const VarDesc& v) {
                       return !v.persistable && !used.count(v.name) &&
                              v.kind == static_cast<int>(VarKind::kLoDTensor);
                     }),
      block->vars.end());
}

}  // namespace framework
}  // namespace paddle_lite
