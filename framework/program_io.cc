#include "framework/program_io.h"

#include "framework/framework.pb.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace framework {

namespace {

Attribute AttrFromProto(const proto::OpDesc::Attr& a, const std::string& op,
                        const std::string& source) {
  auto type = static_cast<AttrType>(a.type());
  switch (type) {
    case AttrType::kInt:
      return a.i();
    case AttrType::kFloat:
      return a.f();
    case AttrType::kString:
      return a.s();
    case AttrType::kInts:
      return std::vector<int32_t>(a.ints().begin(), a.ints().end());
    case AttrType::kFloats:
      return std::vector<float>(a.floats().begin(), a.floats().end());
    case AttrType::kStrings:
      return std::vector<std::string>(a.strings().begin(), a.strings().end());
    case AttrType::kBoolean:
      return a.b();
    case AttrType::kBooleans:
      return std::vector<bool>(a.bools().begin(), a.bools().end());
    case AttrType::kBlock:
      return BlockRef{a.block_idx()};
    case AttrType::kLong:
      return static_cast<int64_t>(a.l());
    case AttrType::kBlocks: {
      std::vector<BlockRef> v;
      for (auto b : a.blocks_idx()) v.push_back(BlockRef{b});
      return v;
    }
    case AttrType::kLongs:
      return std::vector<int64_t>(a.longs().begin(), a.longs().end());
    case AttrType::kFloat64s:
      return std::vector<double>(a.float64s().begin(), a.float64s().end());
    case AttrType::kVar:
      return VarNameRef{a.var_name()};
    case AttrType::kVars:
      return VarNameRefs{
          std::vector<std::string>(a.vars_name().begin(), a.vars_name().end())};
    case AttrType::kFloat64:
      return a.float64();
    case AttrType::kScalar:
    case AttrType::kScalars: {
      auto conv = [](const proto::Scalar& s) {
        Scalar out;
        out.kind = static_cast<Scalar::Kind>(s.type());
        out.b = s.b();
        out.i = s.i();
        out.r = s.has_c() ? s.c().r() : s.r();
        out.imag = s.has_c() ? s.c().i() : 0;
        return out;
      };
      if (type == AttrType::kScalar) return conv(a.scalar());
      std::vector<Scalar> v;
      for (auto& s : a.scalars()) v.push_back(conv(s));
      return v;
    }
  }
  PADDLE_THROW(errors::Unimplemented(
      source, ": op '", op, "' has attribute '", a.name(),
      "' of unknown AttrType ", a.type(),
      "; this file was written by a newer PaddlePaddle."));
}

void AttrToProto(const std::string& name, const Attribute& attr,
                 proto::OpDesc::Attr* a) {
  a->set_name(name);
  a->set_type(static_cast<int>(TypeOf(attr)));
  switch (TypeOf(attr)) {
    case AttrType::kInt:
      a->set_i(std::get<int32_t>(attr));
      break;
    case AttrType::kFloat:
      a->set_f(std::get<float>(attr));
      break;
    case AttrType::kString:
      a->set_s(std::get<std::string>(attr));
      break;
    case AttrType::kInts:
      for (auto v : std::get<std::vector<int32_t>>(attr)) a->add_ints(v);
      break;
    case AttrType::kFloats:
      for (auto v : std::get<std::vector<float>>(attr)) a->add_floats(v);
      break;
    case AttrType::kStrings:
      for (auto& v : std::get<std::vector<std::string>>(attr)) {
        a->add_strings(v);
      }
      break;
    case AttrType::kBoolean:
      a->set_b(std::get<bool>(attr));
      break;
    case AttrType::kBooleans:
      for (bool v : std::get<std::vector<bool>>(attr)) a->add_bools(v);
      break;
    case AttrType::kBlock:
      a->set_block_idx(std::get<BlockRef>(attr).idx);
      break;
    case AttrType::kLong:
      a->set_l(std::get<int64_t>(attr));
      break;
    case AttrType::kBlocks:
      for (auto b : std::get<std::vector<BlockRef>>(attr)) {
        a->add_blocks_idx(b.idx);
      }
      break;
    case AttrType::kLongs:
      for (auto v : std::get<std::vector<int64_t>>(attr)) a->add_longs(v);
      break;
    case AttrType::kFloat64s:
      for (auto v : std::get<std::vector<double>>(attr)) a->add_float64s(v);
      break;
    case AttrType::kVar:
      a->set_var_name(std::get<VarNameRef>(attr).name);
      break;
    case AttrType::kVars:
      for (auto& v : std::get<VarNameRefs>(attr).names) a->add_vars_name(v);
      break;
    case AttrType::kFloat64:
      a->set_float64(std::get<double>(attr));
      break;
    case AttrType::kScalar:
    case AttrType::kScalars: {
      auto conv = [](const Scalar& s, proto::Scalar* p) {
        p->set_type(s.kind);
        if (s.kind == Scalar::kBool) p->set_b(s.b);
        if (s.kind == Scalar::kInt64) p->set_i(s.i);
        if (s.kind == Scalar::kFloat64) p->set_r(s.r);
        if (s.kind == Scalar::kComplex128) {
          p->mutable_c()->set_r(s.r);
          p->mutable_c()->set_i(s.imag);
        }
      };
      if (TypeOf(attr) == AttrType::kScalar) {
        conv(std::get<Scalar>(attr), a->mutable_scalar());
      } else {
        for (auto& s : std::get<std::vector<Scalar>>(attr)) {
          conv(s, a->add_scalars());
        }
      }
      break;
    }
  }
}

VarNameMap SlotsFromProto(
    const google::protobuf::RepeatedPtrField<proto::OpDesc::Var>& vars) {
  VarNameMap map;
  for (auto& v : vars) {
    map.emplace_back(v.parameter(),
                     std::vector<std::string>(v.arguments().begin(),
                                              v.arguments().end()));
  }
  return map;
}

void SlotsToProto(const VarNameMap& map,
                  google::protobuf::RepeatedPtrField<proto::OpDesc::Var>* out) {
  for (auto& kv : map) {
    auto* v = out->Add();
    v->set_parameter(kv.first);
    for (auto& a : kv.second) v->add_arguments(a);
  }
}

DataType CheckedDataType(int raw, const std::string& var,
                         const std::string& source) {
  PADDLE_ENFORCE(IsValidDataType(raw),
                 errors::Unimplemented(source, ": variable '", var,
                                       "' has element type ", raw,
                                       ", which this runtime does not know."));
  return static_cast<DataType>(raw);
}

}  // namespace

ProgramDesc ParseProgramDesc(const std::string& bytes,
                             const std::string& source) {
  proto::ProgramDesc pb;
  PADDLE_ENFORCE(!bytes.empty(),
                 errors::InvalidArgument(source, ": the program file is empty."));
  PADDLE_ENFORCE(
      pb.ParseFromString(bytes),
      errors::InvalidArgument(source,
                              ": not a PaddlePaddle ProgramDesc (the protobuf "
                              "does not parse; the file is truncated, "
                              "corrupted or of another format)."));
  PADDLE_ENFORCE(pb.blocks_size() > 0,
                 errors::InvalidArgument(source,
                                         ": the program has no blocks; not a "
                                         "PaddlePaddle model program."));
  ProgramDesc program;
  if (pb.has_version()) program.version = pb.version().version();
  for (auto& pair : pb.op_version_map().pair()) {
    program.op_version_map.emplace_back(pair.op_name(),
                                        pair.op_version().version());
  }
  for (auto& b : pb.blocks()) {
    BlockDesc block;
    block.idx = b.idx();
    block.parent_idx = b.parent_idx();
    block.forward_block_idx = b.forward_block_idx();
    for (auto& v : b.vars()) {
      VarDesc var;
      var.name = v.name();
      var.kind = v.type().type();
      var.persistable = v.persistable();
      var.need_check_feed = v.need_check_feed();
      var.is_parameter = v.is_parameter();
      var.stop_gradient = v.stop_gradient();
      const proto::VarType::TensorDesc* desc = nullptr;
      if (v.type().has_lod_tensor()) {
        desc = &v.type().lod_tensor().tensor();
        var.lod_level = v.type().lod_tensor().lod_level();
      } else if (v.type().has_tensor_array()) {
        desc = &v.type().tensor_array().tensor();
        var.lod_level = v.type().tensor_array().lod_level();
      } else if (v.type().has_selected_rows()) {
        desc = &v.type().selected_rows();
      }
      if (desc) {
        var.dtype = CheckedDataType(desc->data_type(), var.name, source);
        var.dims.assign(desc->dims().begin(), desc->dims().end());
      }
      block.vars.push_back(std::move(var));
    }
    for (auto& o : b.ops()) {
      OpDesc op;
      op.type = o.type();
      op.inputs = SlotsFromProto(o.inputs());
      op.outputs = SlotsFromProto(o.outputs());
      op.is_target = o.is_target();
      for (auto& a : o.attrs()) {
        op.attrs[a.name()] = AttrFromProto(a, op.type, source);
      }
      block.ops.push_back(std::move(op));
    }
    program.blocks.push_back(std::move(block));
  }
  for (size_t i = 0; i < program.blocks.size(); ++i) {
    PADDLE_ENFORCE(program.blocks[i].idx == static_cast<int>(i),
                   errors::InvalidArgument(source, ": block ", i,
                                           " says its index is ",
                                           program.blocks[i].idx, "."));
  }
  return program;
}

std::string SerializeProgramDesc(const ProgramDesc& program) {
  proto::ProgramDesc pb;
  if (program.version) pb.mutable_version()->set_version(*program.version);
  if (!program.op_version_map.empty()) {
    auto* map = pb.mutable_op_version_map();
    for (auto& kv : program.op_version_map) {
      auto* pair = map->add_pair();
      pair->set_op_name(kv.first);
      pair->mutable_op_version()->set_version(kv.second);
    }
  }
  for (auto& block : program.blocks) {
    auto* b = pb.add_blocks();
    b->set_idx(block.idx);
    b->set_parent_idx(block.parent_idx);
    b->set_forward_block_idx(block.forward_block_idx);
    for (auto& var : block.vars) {
      auto* v = b->add_vars();
      v->set_name(var.name);
      v->set_persistable(var.persistable);
      if (var.need_check_feed) v->set_need_check_feed(true);
      if (var.is_parameter) v->set_is_parameter(true);
      if (var.stop_gradient) v->set_stop_gradient(true);
      auto* t = v->mutable_type();
      t->set_type(var.kind);
      proto::VarType::TensorDesc* desc = nullptr;
      if (var.kind == static_cast<int>(VarKind::kLoDTensor)) {
        auto* lt = t->mutable_lod_tensor();
        if (var.lod_level) lt->set_lod_level(var.lod_level);
        desc = lt->mutable_tensor();
      } else if (var.kind == static_cast<int>(VarKind::kLoDTensorArray)) {
        auto* ta = t->mutable_tensor_array();
        if (var.lod_level) ta->set_lod_level(var.lod_level);
        desc = ta->mutable_tensor();
      } else if (var.kind == static_cast<int>(VarKind::kSelectedRows)) {
        desc = t->mutable_selected_rows();
      }
      if (desc) {
        desc->set_data_type(static_cast<int>(var.dtype));
        for (auto d : var.dims) desc->add_dims(d);
      }
    }
    for (auto& op : block.ops) {
      auto* o = b->add_ops();
      o->set_type(op.type);
      SlotsToProto(op.inputs, o->mutable_inputs());
      SlotsToProto(op.outputs, o->mutable_outputs());
      if (op.is_target) o->set_is_target(true);
      for (auto& kv : op.attrs) AttrToProto(kv.first, kv.second, o->add_attrs());
    }
  }
  return pb.SerializeAsString();
}

bool ParseTensorDesc(const std::string& bytes, int* raw_type, DDim* dims) {
  proto::VarType::TensorDesc desc;
  if (!desc.ParseFromString(bytes)) return false;
  *raw_type = desc.data_type();
  dims->assign(desc.dims().begin(), desc.dims().end());
  return true;
}

std::string SerializeTensorDesc(DataType type, const DDim& dims) {
  proto::VarType::TensorDesc desc;
  desc.set_data_type(static_cast<int>(type));
  for (auto d : dims) desc.add_dims(d);
  return desc.SerializeAsString();
}

}  // namespace framework
}  // namespace paddle_lite
