#include "framework/operator.h"

#include "framework/make_only.h"
#include "framework/op_registry.h"

namespace paddle_lite {
namespace framework {

namespace {
const std::vector<std::string>& EmptyNames() {
  static const std::vector<std::string> empty;
  return empty;
}
const std::vector<Variable*>& EmptyVars() {
  static const std::vector<Variable*> empty;
  return empty;
}
template <typename Slots>
const std::vector<Variable*>* FindVars(const Slots& slots,
                                       const std::string& slot) {
  for (auto& kv : slots) {
    if (kv.first == slot) return &kv.second;
  }
  return nullptr;
}
}  // namespace

const std::vector<Variable*>* RuntimeContext::FindInput(
    const std::string& slot) const {
  return FindVars(inputs, slot);
}
const std::vector<Variable*>* RuntimeContext::FindOutput(
    const std::string& slot) const {
  return FindVars(outputs, slot);
}

OperatorBase::OperatorBase(std::string type,
                           VarNameMap inputs,
                           VarNameMap outputs,
                           AttributeMap attrs)
    : type_(std::move(type)),
      inputs_(std::move(inputs)),
      outputs_(std::move(outputs)),
      attrs_(std::move(attrs)) {}

bool OperatorBase::HasInput(const std::string& slot) const {
  auto* args = FindSlot(inputs_, slot);
  return args && !args->empty();
}

bool OperatorBase::HasOutput(const std::string& slot) const {
  auto* args = FindSlot(outputs_, slot);
  return args && !args->empty();
}

const std::string& OperatorBase::Input(const std::string& slot) const {
  auto& args = InputList(slot);
  PADDLE_ENFORCE(args.size() == 1,
                 errors::InvalidArgument("Op '", type_, "' input '", slot,
                                         "' should name one variable, it "
                                         "names ",
                                         args.size(), "."));
  return args[0];
}

const std::string& OperatorBase::Output(const std::string& slot) const {
  auto& args = OutputList(slot);
  PADDLE_ENFORCE(args.size() == 1,
                 errors::InvalidArgument("Op '", type_, "' output '", slot,
                                         "' should name one variable, it "
                                         "names ",
                                         args.size(), "."));
  return args[0];
}

const std::vector<std::string>& OperatorBase::InputList(
    const std::string& slot) const {
  auto* args = FindSlot(inputs_, slot);
  return args ? *args : EmptyNames();
}

const std::vector<std::string>& OperatorBase::OutputList(
    const std::string& slot) const {
  auto* args = FindSlot(outputs_, slot);
  return args ? *args : EmptyNames();
}

const Attribute& OperatorBase::GetAttr(const std::string& name) const {
  auto it = attrs_.find(name);
  PADDLE_ENFORCE(
      it != attrs_.end(),
      errors::NotFound("Op '", type_, "' has no attribute '", name, "'."));
  return it->second;
}

void OperatorBase::CheckDerivedType(const std::type_info& asked) const {
  PADDLE_ENFORCE(
      *derived_->type == asked,
      errors::Fatal("Op '", type_, "': Derived<", asked.name(),
                    "> asked, but it holds ", derived_->type->name()));
}

void OperatorBase::RunWithoutKernel(const RunEnv&) const {
  PADDLE_THROW(errors::Unimplemented("Op '", type_,
                                     "' runs through kernels, not directly."));
}

std::string OperatorBase::DebugLabel() const {
  // The first main (non-extra) output in the proto's order names the op
  // best: Y of batch_norm rather than its MeanOut.
  if (info_ != nullptr) {
    for (auto& slot : info_->proto.outputs) {
      if (slot.extra) continue;
      auto* args = FindSlot(outputs_, slot.name);
      if (args && !args->empty()) return type_ + " -> " + (*args)[0];
    }
  }
  for (auto& kv : outputs_) {
    if (!kv.second.empty()) return type_ + " -> " + kv.second[0];
  }
  return type_;
}

DataType KernelTypeContext::InputDataType(const std::string& slot) const {
  auto& names = op_.InputList(slot);
  if (names.empty()) return DataType::kUndefined;
  auto* var = program_.FindVarRecursive(block_idx_, names[0]);
  if (var == nullptr ||
      !(var->is_tensor() ||
        var->kind == static_cast<int>(VarKind::kLoDTensorArray))) {
    return DataType::kUndefined;
  }
  return var->dtype;
}

DataType KernelTypeContext::OutputDataType(const std::string& slot) const {
  auto& names = op_.OutputList(slot);
  if (names.empty()) return DataType::kUndefined;
  auto* var = program_.FindVarRecursive(block_idx_, names[0]);
  if (var == nullptr || !var->is_tensor()) return DataType::kUndefined;
  return var->dtype;
}

DataType OperatorWithKernel::IndicateDataType(
    const KernelTypeContext& ctx) const {
  if (Info() != nullptr) {
    for (auto& slot : Info()->proto.inputs) {
      DataType t = ctx.InputDataType(slot.name);
      if (t != DataType::kUndefined) return t;
    }
  }
  for (auto& kv : Inputs()) {
    DataType t = ctx.InputDataType(kv.first);
    if (t != DataType::kUndefined) return t;
  }
  return DataType::kFloat32;
}

bool ExecutionContext::HasInput(const std::string& slot) const {
  return InputVar(slot) != nullptr;
}

bool ExecutionContext::HasOutput(const std::string& slot) const {
  return OutputVar(slot) != nullptr;
}

size_t ExecutionContext::InputSize(const std::string& slot) const {
  return InputVars(slot).size();
}

size_t ExecutionContext::OutputSize(const std::string& slot) const {
  return OutputVars(slot).size();
}

Variable* ExecutionContext::InputVar(const std::string& slot) const {
  auto& vars = InputVars(slot);
  return vars.empty() ? nullptr : vars[0];
}

Variable* ExecutionContext::OutputVar(const std::string& slot) const {
  auto& vars = OutputVars(slot);
  return vars.empty() ? nullptr : vars[0];
}

const std::vector<Variable*>& ExecutionContext::InputVars(
    const std::string& slot) const {
  auto* vars = ctx_.FindInput(slot);
  return vars ? *vars : EmptyVars();
}

const std::vector<Variable*>& ExecutionContext::OutputVars(
    const std::string& slot) const {
  auto* vars = ctx_.FindOutput(slot);
  return vars ? *vars : EmptyVars();
}

const DDim& InferShapeContext::GetInputDim(const std::string& slot) const {
  return InputTensor(slot, 0).dims();
}

std::vector<DDim> InferShapeContext::GetInputsDim(
    const std::string& slot) const {
  std::vector<DDim> dims;
  for (auto* var : ctx_.InputVars(slot)) {
    dims.push_back(var->Get<Tensor>().dims());
  }
  return dims;
}

DataType InferShapeContext::GetInputDataType(const std::string& slot) const {
  return InputTensor(slot, 0).dtype();
}

const LoD& InferShapeContext::GetInputLoD(const std::string& slot) const {
  return InputTensor(slot, 0).lod();
}

const Tensor& InferShapeContext::GetInputTensor(const std::string& slot,
                                                size_t i) const {
  read_values_ = true;
  const auto& names = op().InputList(slot);
  // A run that only makes primitives (make_only.h) computes no values, so
  // these would be garbage, and the shapes made from them wrong.
  PADDLE_ENFORCE(
      !MakingOnly(),
      errors::Unavailable(
          "a run that only makes primitives stops at op '", op().Type(),
          "': its output shapes depend on the values "
          "of input ",
          slot, "[", i, "]", i < names.size() ? " ('" + names[i] + "')" : "",
          ", which such a run does not compute"));
  // An unnamed one cannot be proven fixed: it forces re-inference.
  read_variables_.push_back(i < names.size() ? names[i] : std::string());
  const Tensor& t = InputTensor(slot, i);
  if (!t.IsInitialized() || t.place().is_host()) return t;
  // Values on a device (a shape computed by a CUDA kernel) are read here
  // through a host copy, kept while this context lives.
  host_copies_.push_back(std::make_unique<Tensor>());
  TensorCopy(t, platform::CPUPlace{}, host_copies_.back().get());
  return *host_copies_.back();
}

const Tensor& InferShapeContext::InputTensor(const std::string& slot,
                                             size_t i) const {
  auto& vars = ctx_.InputVars(slot);
  PADDLE_ENFORCE(i < vars.size() && vars[i] != nullptr,
                 errors::NotFound("Op '", op().Type(), "' has no input '", slot,
                                  "'", i ? " #" + std::to_string(i) : "", "."));
  PADDLE_ENFORCE(
      vars[i]->IsType<Tensor>(),
      errors::InvalidArgument("Op '", op().Type(), "' input '", slot, "' (",
                              op().InputList(slot)[i], ") is not a tensor."));
  return vars[i]->Get<Tensor>();
}

void InferShapeContext::SetOutputDim(const std::string& slot,
                                     const DDim& dims) const {
  Variable* var = ctx_.OutputVar(slot);
  if (var) var->GetMutable<Tensor>()->Resize(dims);
}

void InferShapeContext::SetOutputsDim(const std::string& slot,
                                      const std::vector<DDim>& dims) const {
  auto& vars = ctx_.OutputVars(slot);
  PADDLE_ENFORCE(
      vars.size() == dims.size(),
      errors::InvalidArgument("Op '", op().Type(), "' output '", slot, "' has ",
                              vars.size(), " variables but ", dims.size(),
                              " shapes were inferred."));
  for (size_t i = 0; i < vars.size(); ++i) {
    if (vars[i]) vars[i]->GetMutable<Tensor>()->Resize(dims[i]);
  }
}

void InferShapeContext::SetOutputLoD(const std::string& slot,
                                     const LoD& lod) const {
  Variable* var = ctx_.OutputVar(slot);
  if (var) var->GetMutable<Tensor>()->set_lod(lod);
}

void InferShapeContext::ShareLoD(const std::string& in,
                                 const std::string& out) const {
  Variable* var = ctx_.OutputVar(out);
  if (var == nullptr || !ctx_.HasInput(in)) return;
  var->GetMutable<Tensor>()->set_lod(InputTensor(in, 0).lod());
}

}  // namespace framework
}  // namespace paddle_lite
