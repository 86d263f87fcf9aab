#include "framework/op_proto.h"

namespace paddle_lite {
namespace framework {

namespace {
template <typename T>
const T* FindByName(const std::vector<T>& items, const std::string& name) {
  for (auto& item : items) {
    if (item.name == name) return &item;
  }
  return nullptr;
}
}  // namespace

const OpSlotProto* OpProto::FindInput(const std::string& name) const {
  return FindByName(inputs, name);
}
const OpSlotProto* OpProto::FindOutput(const std::string& name) const {
  return FindByName(outputs, name);
}
const OpAttrProto* OpProto::FindAttr(const std::string& name) const {
  return FindByName(attrs, name);
}

SlotBuilder OpProtoAndCheckerMaker::AddInput(const std::string& name,
                                             const std::string& comment) {
  inputs_.push_back(OpSlotProto{name, comment});
  return SlotBuilder(&inputs_.back());
}

SlotBuilder OpProtoAndCheckerMaker::AddOutput(const std::string& name,
                                              const std::string& comment) {
  outputs_.push_back(OpSlotProto{name, comment});
  return SlotBuilder(&outputs_.back());
}

OpProto OpProtoAndCheckerMaker::Build(const std::string& type) {
  Make();
  OpProto proto;
  proto.type = type;
  proto.comment = comment_;
  proto.inputs.assign(inputs_.begin(), inputs_.end());
  proto.outputs.assign(outputs_.begin(), outputs_.end());
  proto.attrs.assign(attrs_.begin(), attrs_.end());
  return proto;
}

}  // namespace framework
}  // namespace paddle_lite
