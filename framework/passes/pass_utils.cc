#include "framework/passes/pass_utils.h"

#include <algorithm>
#include <sstream>

#include "framework/op_registry.h"
#include "framework/pass.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace framework {
namespace passes {

std::string SoleArg(const VarNameMap& slots, const std::string& slot) {
  const auto* args = FindSlot(slots, slot);
  return args && args->size() == 1 ? args->front() : std::string();
}

bool SlotEmpty(const VarNameMap& slots, const std::string& slot) {
  const auto* args = FindSlot(slots, slot);
  return args == nullptr || args->empty();
}

template <typename T>
T GetAttr(const OpDesc& op, const std::string& name) {
  auto it = op.attrs.find(name);
  if (it != op.attrs.end()) return AttrCast<T>(it->second);
  const OpInfo* info = OpInfoMap::Instance().Find(op.type);
  const OpAttrProto* attr = info ? info->proto.FindAttr(name) : nullptr;
  PADDLE_ENFORCE(attr != nullptr && attr->default_value.has_value(),
                 errors::NotFound("Op '", op.type, "' has no attribute '", name,
                                  "' and no default for it."));
  return AttrCast<T>(*attr->default_value);
}

template int32_t GetAttr<int32_t>(const OpDesc&, const std::string&);
template float GetAttr<float>(const OpDesc&, const std::string&);
template bool GetAttr<bool>(const OpDesc&, const std::string&);
template std::string GetAttr<std::string>(const OpDesc&, const std::string&);
template std::vector<float> GetAttr<std::vector<float>>(const OpDesc&,
                                                        const std::string&);
template std::vector<int32_t> GetAttr<std::vector<int32_t>>(
    const OpDesc&, const std::string&);

namespace {

bool Names(const VarNameMap& slots, const std::string& name) {
  for (auto& kv : slots) {
    if (std::find(kv.second.begin(), kv.second.end(), name) !=
        kv.second.end()) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<int> WritersOf(const BlockDesc& block, const std::string& name) {
  std::vector<int> out;
  for (size_t i = 0; i < block.ops.size(); ++i) {
    if (Names(block.ops[i].outputs, name)) out.push_back(static_cast<int>(i));
  }
  return out;
}

bool UsedInSubBlock(const ProgramDesc& program, const std::string& name) {
  for (size_t b = 1; b < program.blocks.size(); ++b) {
    for (auto& op : program.blocks[b].ops) {
      if (Names(op.inputs, name) || Names(op.outputs, name)) return true;
    }
  }
  return false;
}

bool TouchedBetween(const BlockDesc& block,
                    const std::string& name,
                    int after,
                    int before) {
  for (int i = after + 1; i < before; ++i) {
    const OpDesc& op = block.ops[i];
    if (Names(op.inputs, name) || Names(op.outputs, name)) return true;
  }
  return false;
}

bool IsIntermediate(const ProgramDesc& program, const std::string& name) {
  const BlockDesc& block = program.blocks[0];
  const VarDesc* var = block.FindVar(name);
  if (var != nullptr && !var->is_tensor()) return false;
  return !IsPinned(block, name) && WritersOf(block, name).size() == 1 &&
         !UsedInSubBlock(program, name);
}

int SoleConsumer(const BlockDesc& block, const std::string& name) {
  int found = -1;
  for (size_t i = 0; i < block.ops.size(); ++i) {
    int reads = 0;
    for (auto& kv : block.ops[i].inputs) {
      reads += static_cast<int>(
          std::count(kv.second.begin(), kv.second.end(), name));
    }
    if (reads == 0) continue;
    if (reads > 1 || found >= 0) return -1;
    found = static_cast<int>(i);
  }
  return found;
}

bool CanMoveOutput(const ProgramDesc& program,
                   const std::string& name,
                   int producer,
                   int consumer) {
  const BlockDesc& block = program.blocks[0];
  const VarDesc* var = block.FindVar(name);
  if (var != nullptr && (var->persistable || !var->is_tensor())) return false;
  return WritersOf(block, name) == std::vector<int>{consumer} &&
         !TouchedBetween(block, name, producer, consumer);
}

const Tensor* ConstantValue(const ProgramDesc& program,
                            const Scope& weights,
                            const std::string& name,
                            int allowed_writer) {
  const BlockDesc& block = program.blocks[0];
  const VarDesc* var = block.FindVar(name);
  if (var == nullptr || !var->persistable || !var->is_tensor()) return nullptr;
  for (int writer : WritersOf(block, name)) {
    if (writer != allowed_writer) return nullptr;
  }
  for (size_t b = 1; b < program.blocks.size(); ++b) {
    for (auto& op : program.blocks[b].ops) {
      if (Names(op.outputs, name)) return nullptr;
    }
  }
  const Variable* v = weights.FindVar(name);
  if (v == nullptr || !v->IsType<Tensor>()) return nullptr;
  const Tensor& t = v->Get<Tensor>();
  if (!t.IsInitialized() || !t.place().is_cpu()) return nullptr;
  return &t;
}

const Tensor* ChannelBiasOfAdd(const ProgramDesc& program,
                               const Scope& weights,
                               int add,
                               const std::string& conv_out,
                               int64_t channels,
                               DataType dtype) {
  const Tensor* bias = ChannelOrScalarConstantOf(
      program, weights, add, "elementwise_add", conv_out, channels, dtype);
  return bias != nullptr && bias->numel() == channels ? bias : nullptr;
}

const Tensor* ChannelOrScalarConstantOf(const ProgramDesc& program,
                                        const Scope& weights,
                                        int index,
                                        const std::string& type,
                                        const std::string& conv_out,
                                        int64_t channels,
                                        DataType dtype) {
  const OpDesc& op = program.blocks[0].ops[index];
  if (op.type != type) return nullptr;
  // A single value may also be X of an add or mul (they commute).
  const bool swapped = SoleInput(op, "Y") == conv_out &&
                       (type == "elementwise_add" || type == "elementwise_mul");
  if (!swapped && SoleInput(op, "X") != conv_out) return nullptr;
  const Tensor* value =
      ConstantValue(program, weights, SoleInput(op, swapped ? "X" : "Y"));
  if (value == nullptr || value->dtype() != dtype || value->rank() > 4) {
    return nullptr;
  }
  if (value->numel() == 1) return value;  // all dims 1: broadcast anywhere
  if (swapped) return nullptr;
  if (value->numel() != channels) return nullptr;
  // Where Y's dims land among the output's 4 dims (ops.md 6.1).
  const int rank = value->rank();
  // In 64 bits: a hostile axis must not wrap past the bounds check.
  int64_t axis = GetAttr<int32_t>(op, "axis");
  if (rank == 4 && axis != -1 && axis != 0) return nullptr;
  axis = axis < 0 ? axis + (4 - rank) + 1 : axis;
  if (axis < 0 || axis + rank > 4) return nullptr;
  DDim aligned(4, 1);
  for (int d = 0; d < rank; ++d) aligned[axis + d] = value->dims()[d];
  return aligned == DDim{1, channels, 1, 1} ? value : nullptr;
}

bool FoldableConvAt(const ProgramDesc& program,
                    const Scope& weights,
                    int index,
                    bool transposed_too,
                    FoldableConv* conv) {
  const OpDesc& op = program.blocks[0].ops[index];
  conv->transposed = op.type == "conv2d_transpose";
  if ((op.type != "conv2d" && op.type != "depthwise_conv2d" &&
       !(transposed_too && conv->transposed)) ||
      GetAttr<std::string>(op, "data_format") == "NHWC" ||
      !SlotEmpty(op.inputs, "ResidualData")) {
    return false;
  }
  conv->filter = ConstantValue(program, weights, SoleInput(op, "Filter"));
  const Tensor* filter = conv->filter;
  if (filter == nullptr || filter->rank() != 4 ||
      (filter->dtype() != DataType::kFloat32 &&
       filter->dtype() != DataType::kFloat64)) {
    return false;
  }
  conv->dtype = filter->dtype();
  conv->groups = std::max(1, GetAttr<int32_t>(op, "groups"));
  if (conv->transposed && filter->dims()[0] % conv->groups != 0) return false;
  conv->channels =
      conv->transposed ? filter->dims()[1] * conv->groups : filter->dims()[0];
  conv->bias = nullptr;
  if (!SlotEmpty(op.inputs, "Bias")) {
    conv->bias = ConstantValue(program, weights, SoleInput(op, "Bias"));
    if (conv->bias == nullptr || conv->bias->dtype() != conv->dtype ||
        conv->bias->numel() != conv->channels) {
      return false;
    }
  }
  return true;
}

std::string ReplaceConvWeights(ProgramDesc* program,
                               Scope* weights,
                               int conv,
                               const std::string& suffix,
                               Tensor filter,
                               Tensor bias,
                               const std::string& output,
                               const std::vector<int>& folded) {
  BlockDesc& block = program->blocks[0];
  const std::string filter_name = SoleInput(block.ops[conv], "Filter");
  const std::string filter_out =
      UniqueVarName(*program, *weights, filter_name + suffix);
  AddConstant(program, weights, filter_out, std::move(filter));
  const std::string bias_out =
      UniqueVarName(*program, *weights, filter_name + suffix + "_bias");
  AddConstant(program, weights, bias_out, std::move(bias));
  OpDesc& op = block.ops[conv];
  op.SetInput("Filter", {filter_out});
  op.SetInput("Bias", {bias_out});
  op.SetOutput("Output", {output});
  RemoveOps(&block, folded);
  return "Filter '" + filter_out + "', Bias '" + bias_out + "'";
}

bool FusedActivationAttrs(const OpDesc& op, AttributeMap* attrs) {
  float alpha = 0.0f;
  float beta = 0.0f;
  if (op.type == "relu6") {
    beta = GetAttr<float>(op, "threshold");
  } else if (op.type == "leaky_relu") {
    alpha = GetAttr<float>(op, "alpha");
  } else if (op.type == "swish") {
    alpha = GetAttr<float>(op, "beta");
  } else if (op.type == "hard_sigmoid") {
    alpha = GetAttr<float>(op, "slope");
    beta = GetAttr<float>(op, "offset");
  } else if (op.type == "hard_swish") {
    if (GetAttr<float>(op, "threshold") != 6.0f ||
        GetAttr<float>(op, "scale") != 6.0f ||
        GetAttr<float>(op, "offset") != 3.0f) {
      return false;
    }
  } else if (op.type != "relu" && op.type != "sigmoid") {
    return false;
  }
  (*attrs)["fuse_activation"] = op.type;
  (*attrs)["fuse_alpha"] = alpha;
  (*attrs)["fuse_beta"] = beta;
  return true;
}

std::string UniqueVarName(const ProgramDesc& program,
                          const Scope& weights,
                          const std::string& base) {
  auto taken = [&](const std::string& name) {
    if (weights.FindVar(name) != nullptr) return true;
    for (auto& block : program.blocks) {
      if (block.FindVar(name) != nullptr) return true;
    }
    return false;
  };
  std::string name = base;
  for (int i = 1; taken(name); ++i) name = base + "_" + std::to_string(i);
  return name;
}

void AddConstant(ProgramDesc* program,
                 Scope* weights,
                 const std::string& name,
                 Tensor value) {
  VarDesc var;
  var.name = name;
  var.dtype = value.dtype();
  var.dims = value.dims();
  var.persistable = true;
  program->blocks[0].vars.push_back(std::move(var));
  *weights->Var(name)->GetMutable<Tensor>() = std::move(value);
}

void RenameOutputOf(OpDesc* op,
                    const std::string& from,
                    const std::string& to) {
  for (auto& kv : op->outputs) {
    std::replace(kv.second.begin(), kv.second.end(), from, to);
  }
}

std::string NumberText(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

std::string OpLabel(const BlockDesc& block, int index) {
  return block.ops[index].type + " #" + std::to_string(index);
}

bool IsFloat32Rank4(const ProgramDesc& program, const std::string& name) {
  const VarDesc* var = program.FindVarRecursive(0, name);
  return var != nullptr && var->is_tensor() &&
         var->dtype == DataType::kFloat32 && var->dims.size() == 4;
}

int NearestUpsamplingFor(const ProgramDesc& program,
                         const std::string& name,
                         int consumer,
                         float* scale_h,
                         float* scale_w) {
  const BlockDesc& block = program.blocks[0];
  if (!IsIntermediate(program, name) || SoleConsumer(block, name) != consumer) {
    return -1;
  }
  const int up = ProducerOf(block, name);
  if (up < 0 || up >= consumer) return -1;
  const OpDesc& op = block.ops[up];
  if (op.type != "nearest_interp_v2" || SoleOutput(op, "Out") != name ||
      !IsFloat32Rank4(program, name)) {
    return -1;
  }
  const std::string source = SoleInput(op, "X");
  if (source.empty() || !IsFloat32Rank4(program, source) ||
      !SlotEmpty(op.inputs, "OutSize") || !SlotEmpty(op.inputs, "SizeTensor") ||
      !SlotEmpty(op.inputs, "Scale")) {
    return -1;
  }
  const std::string layout = GetAttr<std::string>(op, "data_layout");
  if (GetAttr<bool>(op, "align_corners") ||
      GetAttr<std::string>(op, "interp_method") != "nearest" ||
      (layout != "NCHW" && layout != "AnyLayout")) {
    return -1;
  }
  const std::vector<float> scale = GetAttr<std::vector<float>>(op, "scale");
  if (scale.size() != 2 || !(scale[0] > 0.f) || !(scale[1] > 0.f)) return -1;
  for (int w : WritersOf(block, source)) {
    if (w > up && w < consumer) return -1;
  }
  *scale_h = scale[0];
  *scale_w = scale[1];
  return up;
}

}  // namespace passes
}  // namespace framework
}  // namespace paddle_lite
