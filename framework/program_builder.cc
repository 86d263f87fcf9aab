#include "framework/program_builder.h"

#include "framework/model_io.h"

namespace paddle_lite {
namespace framework {

ProgramBuilder::ProgramBuilder() : params_(std::make_shared<Scope>()) {
  VarDesc feed;
  feed.name = "feed";
  feed.kind = static_cast<int>(VarKind::kFeedMinibatch);
  feed.persistable = true;
  block_.vars.push_back(feed);
  VarDesc fetch = feed;
  fetch.name = "fetch";
  fetch.kind = static_cast<int>(VarKind::kFetchList);
  block_.vars.push_back(fetch);
}

int ProgramBuilder::AddBlock(int parent) {
  PADDLE_ENFORCE(parent >= 0 && parent <= static_cast<int>(sub_blocks_.size()),
                 errors::OutOfRange("ProgramBuilder: no block ", parent, "."));
  BlockDesc block;
  block.idx = static_cast<int>(sub_blocks_.size()) + 1;
  block.parent_idx = parent;
  sub_blocks_.push_back(std::move(block));
  return sub_blocks_.back().idx;
}

VarDesc* ProgramBuilder::Declare(const std::string& name, int block) {
  PADDLE_ENFORCE(block >= 0 && block <= static_cast<int>(sub_blocks_.size()),
                 errors::OutOfRange("ProgramBuilder: no block ", block, "."));
  BlockDesc& b = block == 0 ? block_ : sub_blocks_[block - 1];
  PADDLE_ENFORCE(b.FindVar(name) == nullptr,
                 errors::AlreadyExists("ProgramBuilder: variable '", name,
                                       "' is declared twice."));
  b.vars.emplace_back();
  b.vars.back().name = name;
  return &b.vars.back();
}

std::string ProgramBuilder::AddInput(const std::string& name, DataType type,
                                     DDim dims, int lod_level) {
  VarDesc* var = Declare(name);
  var->dtype = type;
  var->dims = std::move(dims);
  var->lod_level = lod_level;
  var->need_check_feed = true;
  inputs_.push_back(name);
  return name;
}

std::string ProgramBuilder::AddParameter(const std::string& name,
                                         const Tensor& value) {
  VarDesc* var = Declare(name);
  var->dtype = value.dtype();
  var->dims = value.dims();
  var->persistable = true;
  var->is_parameter = true;
  TensorCopy(value, platform::CPUPlace{},
             params_->Var(name)->GetMutable<Tensor>());
  return name;
}

std::string ProgramBuilder::AddVar(const std::string& name, DataType type,
                                   DDim dims, int block) {
  VarDesc* var = Declare(name, block);
  var->dtype = type;
  var->dims = std::move(dims);
  return name;
}

void ProgramBuilder::AddOp(const std::string& type, VarNameMap inputs,
                           VarNameMap outputs, AttributeMap attrs, int block) {
  PADDLE_ENFORCE(block >= 0 && block <= static_cast<int>(sub_blocks_.size()),
                 errors::OutOfRange("ProgramBuilder: no block ", block, "."));
  OpDesc op;
  op.type = type;
  op.inputs = std::move(inputs);
  op.outputs = std::move(outputs);
  op.attrs = std::move(attrs);
  for (auto* slots : {&op.inputs, &op.outputs}) {
    for (auto& kv : *slots) {
      for (auto& name : kv.second) {
        bool declared = false;
        for (int b = block; b >= 0 && !declared;
             b = b == 0 ? -1 : sub_blocks_[b - 1].parent_idx) {
          declared = (b == 0 ? block_ : sub_blocks_[b - 1]).FindVar(name);
        }
        PADDLE_ENFORCE(declared,
                       errors::NotFound("ProgramBuilder: op '", type,
                                        "' uses undeclared variable '", name,
                                        "'."));
      }
    }
  }
  (block == 0 ? block_ : sub_blocks_[block - 1]).ops.push_back(std::move(op));
}

void ProgramBuilder::AddOutput(const std::string& name) {
  PADDLE_ENFORCE(block_.FindVar(name) != nullptr,
                 errors::NotFound("ProgramBuilder: output '", name,
                                  "' is not declared."));
  outputs_.push_back(name);
}

ProgramDesc ProgramBuilder::Build() const {
  ProgramDesc program;
  program.version = version_;
  BlockDesc block = block_;
  block.ops.clear();
  for (int col = static_cast<int>(inputs_.size()) - 1; col >= 0; --col) {
    OpDesc feed;
    feed.type = "feed";
    feed.SetInput("X", {"feed"});
    feed.SetOutput("Out", {inputs_[col]});
    feed.attrs["col"] = int32_t{col};
    block.ops.push_back(std::move(feed));
  }
  block.ops.insert(block.ops.end(), block_.ops.begin(), block_.ops.end());
  for (size_t col = 0; col < outputs_.size(); ++col) {
    OpDesc fetch;
    fetch.type = "fetch";
    fetch.SetInput("X", {outputs_[col]});
    fetch.SetOutput("Out", {"fetch"});
    fetch.attrs["col"] = static_cast<int32_t>(col);
    block.ops.push_back(std::move(fetch));
  }
  program.blocks.push_back(std::move(block));
  program.blocks.insert(program.blocks.end(), sub_blocks_.begin(),
                        sub_blocks_.end());
  return program;
}

void ProgramBuilder::Save(const std::string& prefix) const {
  SaveModel(Build(), *params_, prefix);
}

}  // namespace framework
}  // namespace paddle_lite
