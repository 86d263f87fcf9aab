#include "framework/program_desc.h"

#include <algorithm>
#include <map>

#include "platform/enforce.h"

namespace paddle_lite {
namespace framework {

const std::vector<std::string>* FindSlot(const VarNameMap& map,
                                         const std::string& slot) {
  for (auto& kv : map) {
    if (kv.first == slot) return &kv.second;
  }
  return nullptr;
}

std::vector<std::string> OpDesc::Input(const std::string& slot) const {
  auto* args = FindSlot(inputs, slot);
  return args ? *args : std::vector<std::string>{};
}

std::vector<std::string> OpDesc::Output(const std::string& slot) const {
  auto* args = FindSlot(outputs, slot);
  return args ? *args : std::vector<std::string>{};
}

namespace {
void SetSlot(VarNameMap* map, const std::string& slot,
             std::vector<std::string> args) {
  for (auto& kv : *map) {
    if (kv.first == slot) {
      kv.second = std::move(args);
      return;
    }
  }
  map->emplace_back(slot, std::move(args));
}
}  // namespace

void OpDesc::SetInput(const std::string& slot, std::vector<std::string> args) {
  SetSlot(&inputs, slot, std::move(args));
}

void OpDesc::SetOutput(const std::string& slot,
                       std::vector<std::string> args) {
  SetSlot(&outputs, slot, std::move(args));
}

const VarDesc* BlockDesc::FindVar(const std::string& name) const {
  for (auto& v : vars) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

VarDesc* BlockDesc::FindVar(const std::string& name) {
  return const_cast<VarDesc*>(static_cast<const BlockDesc*>(this)->FindVar(name));
}

const VarDesc* ProgramDesc::FindVarRecursive(int block_idx,
                                             const std::string& name) const {
  while (block_idx >= 0 && block_idx < static_cast<int>(blocks.size())) {
    if (auto* v = blocks[block_idx].FindVar(name)) return v;
    block_idx = blocks[block_idx].parent_idx;
  }
  return nullptr;
}

std::vector<std::string> ProgramDesc::ParameterNames() const {
  std::vector<std::string> names;
  if (blocks.empty()) return names;
  for (auto& v : blocks[0].vars) {
    if (v.persistable && v.is_tensor()) names.push_back(v.name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

namespace {
std::vector<std::string> TargetsByCol(const ProgramDesc& program,
                                      const std::string& op_type,
                                      bool take_output) {
  std::map<int, std::string> by_col;
  if (program.blocks.empty()) return {};
  for (auto& op : program.blocks[0].ops) {
    if (op.type != op_type) continue;
    auto it = op.attrs.find("col");
    PADDLE_ENFORCE(it != op.attrs.end(),
                   errors::InvalidArgument("A '", op_type,
                                           "' op has no 'col' attribute."));
    int col = AttrCast<int32_t>(it->second);
    auto args = take_output ? op.Output("Out") : op.Input("X");
    PADDLE_ENFORCE(args.size() == 1,
                   errors::InvalidArgument("A '", op_type, "' op (col ", col,
                                           ") must name exactly one variable."));
    PADDLE_ENFORCE(by_col.count(col) == 0,
                   errors::InvalidArgument("Two '", op_type,
                                           "' ops share col ", col, "."));
    by_col[col] = args[0];
  }
  std::vector<std::string> names;
  int expected = 0;
  for (auto& kv : by_col) {
    PADDLE_ENFORCE(kv.first == expected,
                   errors::InvalidArgument("The '", op_type,
                                           "' ops' col values are not 0..",
                                           by_col.size() - 1, " (missing ",
                                           expected, ")."));
    names.push_back(kv.second);
    ++expected;
  }
  return names;
}
}  // namespace

std::vector<std::string> ProgramDesc::FeedTargetNames() const {
  return TargetsByCol(*this, "feed", /*take_output=*/true);
}

std::vector<std::string> ProgramDesc::FetchTargetNames() const {
  return TargetsByCol(*this, "fetch", /*take_output=*/false);
}

std::string VersionString(const std::optional<int64_t>& version) {
  if (!version) return "none (pre-1.6 file)";
  int64_t v = *version;
  if (v == 0) return "0 (2.0-rc build)";
  return std::to_string(v / 1000000) + "." + std::to_string(v / 1000 % 1000) +
         "." + std::to_string(v % 1000);
}

}  // namespace framework
}  // namespace paddle_lite
