// The program a model file describes, as plain C++ values: blocks of
// variable declarations and ops. Parsed from and written to PaddlePaddle's
// ProgramDesc protobuf by program_io.h, which alone sees protobuf.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "framework/attribute.h"
#include "framework/data_type.h"
#include "framework/ddim.h"

namespace paddle_lite {
namespace framework {

/// VarType.Type values that name variable kinds (not element types).
enum class VarKind : int {
  kLoDTensor = 7,
  kSelectedRows = 8,
  kFeedMinibatch = 9,
  kFetchList = 10,
  kStepScopes = 11,
  kLoDRankTable = 12,
  kLoDTensorArray = 13,
  kPlaceList = 14,
  kReader = 15,
  kRaw = 17,
  kTuple = 18,
};

struct VarDesc {
  std::string name;
  /// A VarKind value; kept as int since newer files add kinds.
  int kind = static_cast<int>(VarKind::kLoDTensor);
  /// Element type for tensors and tensor arrays.
  DataType dtype = DataType::kFloat32;
  /// Declared dims: hints only, -1 = unknown.
  DDim dims;
  int lod_level = 0;
  bool persistable = false;
  bool need_check_feed = false;
  bool is_parameter = false;
  bool stop_gradient = false;

  bool is_tensor() const {
    return kind == static_cast<int>(VarKind::kLoDTensor);
  }
};

/// Slot name -> variable names, in file order.
using VarNameMap = std::vector<std::pair<std::string, std::vector<std::string>>>;

/// Finds a slot; nullptr if absent.
const std::vector<std::string>* FindSlot(const VarNameMap& map,
                                         const std::string& slot);

struct OpDesc {
  std::string type;
  VarNameMap inputs;
  VarNameMap outputs;
  AttributeMap attrs;
  bool is_target = false;

  /// Arguments of a slot (empty if absent).
  std::vector<std::string> Input(const std::string& slot) const;
  std::vector<std::string> Output(const std::string& slot) const;
  void SetInput(const std::string& slot, std::vector<std::string> args);
  void SetOutput(const std::string& slot, std::vector<std::string> args);
  bool HasAttr(const std::string& name) const { return attrs.count(name); }
};

struct BlockDesc {
  int32_t idx = 0;
  int32_t parent_idx = -1;
  int32_t forward_block_idx = -1;
  std::vector<VarDesc> vars;
  std::vector<OpDesc> ops;

  /// Declared in this block only; nullptr if absent.
  const VarDesc* FindVar(const std::string& name) const;
  VarDesc* FindVar(const std::string& name);
};

struct ProgramDesc {
  std::vector<BlockDesc> blocks;
  /// ProgramDesc.version: absent in 2018-era files.
  std::optional<int64_t> version;
  std::vector<std::pair<std::string, int32_t>> op_version_map;

  /// Looks `name` up in block `block_idx` and its ancestors.
  const VarDesc* FindVarRecursive(int block_idx, const std::string& name) const;

  /// Names of the block-0 variables stored in parameter files: persistable
  /// dense tensors except feed/fetch, sorted byte-wise (the order of a
  /// combined params file).
  std::vector<std::string> ParameterNames() const;

  /// Feed targets ordered by `col`: the `Out` of each feed op.
  std::vector<std::string> FeedTargetNames() const;
  /// Fetch targets ordered by `col`: the `X` of each fetch op.
  std::vector<std::string> FetchTargetNames() const;
};

/// "2.6.2" for 2006002, "2.0-rc (0)" for 0, "none" when absent.
std::string VersionString(const std::optional<int64_t>& version);

}  // namespace framework
}  // namespace paddle_lite
