// Builds programs in code, the way PaddlePaddle's Python front end does,
// and saves them in PaddlePaddle's exact format (.pdmodel + .pdiparams).
// Used by tests to make programs and by tools/make_demo_model.
//
//   ProgramBuilder b;
//   auto x = b.AddInput("x", DataType::kFloat32, {-1, 3, 32, 32});
//   auto w = b.AddParameter("conv.w", weights);
//   auto y = b.AddVar("conv.out");
//   b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {w}}},
//           {{"Output", {y}}}, {{"strides", std::vector<int>{1, 1}}});
//   b.AddOutput(y);
//   b.Save("models/demo/model");
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "framework/program_desc.h"
#include "framework/scope.h"
#include "framework/tensor.h"

namespace paddle_lite {
namespace framework {

class ProgramBuilder {
 public:
  ProgramBuilder();

  /// A model input fed at the next `col`; returns its name.
  std::string AddInput(const std::string& name, DataType type, DDim dims,
                       int lod_level = 0);
  /// A persistable parameter with its value (CPU tensor, copied).
  std::string AddParameter(const std::string& name, const Tensor& value);
  /// An intermediate variable (dims unknown until run time by default),
  /// declared in block `block` (0 = the main block).
  std::string AddVar(const std::string& name,
                     DataType type = DataType::kFloat32, DDim dims = {},
                     int block = 0);
  /// Appends an op to a block. Slots and attributes as Paddle names them.
  void AddOp(const std::string& type, VarNameMap inputs, VarNameMap outputs,
             AttributeMap attrs = {}, int block = 0);
  /// A new sub-block (for control flow ops) whose parent is `parent`;
  /// returns its index.
  int AddBlock(int parent = 0);
  /// Marks a variable as a model output fetched at the next `col`.
  void AddOutput(const std::string& name);
  /// ProgramDesc.version written to the file (default 2.6.0).
  void SetVersion(int64_t version) { version_ = version; }

  /// The program with feed ops first (descending col, as Paddle's saver
  /// writes them) and fetch ops last (ascending col).
  ProgramDesc Build() const;
  /// The parameters' values.
  const Scope& parameters() const { return *params_; }
  /// Writes `<prefix>.pdmodel` and `<prefix>.pdiparams`.
  void Save(const std::string& prefix) const;

 private:
  VarDesc* Declare(const std::string& name, int block = 0);
  BlockDesc block_;
  std::vector<BlockDesc> sub_blocks_;  // blocks 1, 2, ...
  std::vector<std::string> inputs_;
  std::vector<std::string> outputs_;
  std::shared_ptr<Scope> params_;
  int64_t version_ = 2006000;
};

}  // namespace framework
}  // namespace paddle_lite
