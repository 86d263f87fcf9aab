// Ops as the executor runs them. An op type is defined once (its class and
// Maker, registered with REGISTER_OPERATOR in operators/<op>.cc); kernels
// for it are registered separately per place and library.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <typeinfo>
#include <vector>

#include "framework/attribute.h"
#include "framework/data_type.h"
#include "framework/op_proto.h"
#include "framework/program_desc.h"
#include "framework/scope.h"
#include "framework/tensor.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace framework {

class ExecutionContext;
class InferShapeContext;
class Executor;
struct OpInfo;

/// The variables an op reads and writes, resolved in one scope. Built
/// once per (op, scope) by the executor; indexes follow the op's slots.
struct RuntimeContext {
  std::vector<std::pair<std::string, std::vector<Variable*>>> inputs;
  std::vector<std::pair<std::string, std::vector<Variable*>>> outputs;

  const std::vector<Variable*>* FindInput(const std::string& slot) const;
  const std::vector<Variable*>* FindOutput(const std::string& slot) const;
};

/// What an op needs when it runs without a kernel (control flow ops).
struct RunEnv {
  const Scope* scope;
  const platform::Place* place;
  Executor* executor;
  const ProgramDesc* program;
};

/// An op instance: type, variable names per slot, attributes (defaults
/// filled in, checked against the op's proto).
class OperatorBase {
 public:
  OperatorBase(std::string type,
               VarNameMap inputs,
               VarNameMap outputs,
               AttributeMap attrs);
  virtual ~OperatorBase() = default;

  const std::string& Type() const { return type_; }
  const VarNameMap& Inputs() const { return inputs_; }
  const VarNameMap& Outputs() const { return outputs_; }
  const AttributeMap& Attrs() const { return attrs_; }
  const OpInfo* Info() const { return info_; }

  bool HasInput(const std::string& slot) const;
  bool HasOutput(const std::string& slot) const;
  /// The single variable of a slot; throws if absent or a list.
  const std::string& Input(const std::string& slot) const;
  const std::string& Output(const std::string& slot) const;
  /// All variables of a slot (empty if absent).
  const std::vector<std::string>& InputList(const std::string& slot) const;
  const std::vector<std::string>& OutputList(const std::string& slot) const;

  bool HasAttr(const std::string& name) const { return attrs_.count(name); }
  /// The attribute converted to T (numeric conversions across versions);
  /// throws NotFound naming the op and attribute if absent.
  template <typename T>
  T Attr(const std::string& name) const {
    return AttrCast<T>(GetAttr(name));
  }
  const Attribute& GetAttr(const std::string& name) const;

  /// What `make(*this)` works out from the attributes alone, made at the
  /// first call and kept with the op (its attributes never change once it
  /// is made): shape inference and kernels that would read a dozen
  /// attributes by name at every new input shape read them once. Thread
  /// safe (clones share ops); if `make` throws, nothing is kept and the
  /// next call tries again. One type T per op.
  template <typename T, typename Make>
  const T& Derived(const Make& make) const {
    DerivedSlot& slot = *derived_;
    const void* value = slot.ready.load(std::memory_order_acquire);
    if (value == nullptr) {
      // Not std::call_once: where it is pthread_once (and under
      // ThreadSanitizer), a throwing `make` leaves it locked for good.
      std::lock_guard<std::mutex> lock(slot.mu);
      if (slot.value == nullptr) {
        slot.value = std::make_shared<const T>(make(*this));
        slot.type = &typeid(T);
        slot.ready.store(slot.value.get(), std::memory_order_release);
      }
      value = slot.value.get();
    }
    CheckDerivedType(typeid(T));
    return *static_cast<const T*>(value);
  }

  /// True for ops that run through a registered kernel.
  virtual bool IsKernelOp() const { return false; }
  /// Ops without kernels (control flow) override this.
  virtual void RunWithoutKernel(const RunEnv& env) const;
  /// True if running the op again on inputs of the same shapes gives
  /// outputs of the same shapes (kernel ops report what their shape
  /// inference did instead). Plan replay relies on it; loops say false.
  virtual bool OutputShapesFollowInputShapes() const { return false; }

  /// "conv2d" plus the first output, for messages.
  std::string DebugLabel() const;

 private:
  friend struct OpRegistryAccess;
  struct DerivedSlot {
    std::mutex mu;
    std::atomic<const void*> ready{nullptr};  // value, once made
    std::shared_ptr<const void> value;
    const std::type_info* type = nullptr;
  };
  void CheckDerivedType(const std::type_info& asked) const;

  std::string type_;
  VarNameMap inputs_;
  VarNameMap outputs_;
  AttributeMap attrs_;
  const OpInfo* info_ = nullptr;
  std::unique_ptr<DerivedSlot> derived_ = std::make_unique<DerivedSlot>();
};

/// What choosing a kernel needs to know before anything runs: the op and
/// the declared types of its variables.
class KernelTypeContext {
 public:
  KernelTypeContext(const OperatorBase& op,
                    const ProgramDesc& program,
                    int block_idx)
      : op_(op), program_(program), block_idx_(block_idx) {}
  const OperatorBase& op() const { return op_; }
  /// Declared element type of the first variable of an input slot;
  /// kUndefined if the slot is empty or the variable is not a tensor.
  DataType InputDataType(const std::string& slot) const;
  /// Same for an output slot.
  DataType OutputDataType(const std::string& slot) const;

 private:
  const OperatorBase& op_;
  const ProgramDesc& program_;
  int block_idx_;
};

/// An op whose work is done by a kernel chosen per (dtype, place, library).
class OperatorWithKernel : public OperatorBase {
 public:
  using OperatorBase::OperatorBase;
  bool IsKernelOp() const override { return true; }

  /// Sets the output dims (and LoD) from the inputs; validates attributes
  /// and shapes with errors that name what is wrong. Runs before every
  /// kernel call whose input shapes changed.
  virtual void InferShape(InferShapeContext* ctx) const = 0;

  /// The element type the kernel must handle. Default: the declared type
  /// of the first input slot (in the proto's order) that has a tensor.
  virtual DataType IndicateDataType(const KernelTypeContext& ctx) const;
  /// The data layout the kernel is asked for (default: any).
  virtual DataLayout IndicateDataLayout(const KernelTypeContext&) const {
    return DataLayout::kAnyLayout;
  }
  /// True for an op whose kernel sets outputs' dims from input values
  /// (NMS keeps some rows), beyond what InferShape can know. A recorded
  /// run's plan replays it with its shapes inferred again, and the ops
  /// after it: otherwise a first run whose kernel happened to keep
  /// InferShape's dims (no rows kept) would fix them for every replay.
  virtual bool KernelSetsOutputDims() const { return false; }
};

/// Everything a kernel sees when it runs: inputs, outputs, attributes and
/// the device context of its place.
class ExecutionContext {
 public:
  ExecutionContext(const OperatorBase& op,
                   const Scope& scope,
                   const platform::DeviceContext& device_context,
                   const RuntimeContext& ctx)
      : op_(op), scope_(scope), device_context_(device_context), ctx_(ctx) {}
  virtual ~ExecutionContext() = default;

  const OperatorBase& op() const { return op_; }
  const Scope& scope() const { return scope_; }
  const platform::Place GetPlace() const { return device_context_.GetPlace(); }
  template <typename DeviceContextT>
  const DeviceContextT& device_context() const {
    return static_cast<const DeviceContextT&>(device_context_);
  }

  /// True when the slot names at least one variable that exists.
  bool HasInput(const std::string& slot) const;
  bool HasOutput(const std::string& slot) const;
  size_t InputSize(const std::string& slot) const;
  size_t OutputSize(const std::string& slot) const;

  /// The first variable of an input slot as T (Tensor or TensorList);
  /// nullptr when the slot is absent or empty.
  template <typename T>
  const T* Input(const std::string& slot) const {
    Variable* var = InputVar(slot);
    return var ? &var->Get<T>() : nullptr;
  }
  /// Every variable of a (duplicable) input slot.
  template <typename T>
  std::vector<const T*> MultiInput(const std::string& slot) const {
    std::vector<const T*> out;
    for (Variable* var : InputVars(slot)) {
      out.push_back(var ? &var->Get<T>() : nullptr);
    }
    return out;
  }
  template <typename T>
  T* Output(const std::string& slot) const {
    Variable* var = OutputVar(slot);
    return var ? var->GetMutable<T>() : nullptr;
  }
  template <typename T>
  std::vector<T*> MultiOutput(const std::string& slot) const {
    std::vector<T*> out;
    for (Variable* var : OutputVars(slot)) {
      out.push_back(var ? var->GetMutable<T>() : nullptr);
    }
    return out;
  }
  template <typename T>
  T Attr(const std::string& name) const {
    return op_.Attr<T>(name);
  }
  bool HasAttr(const std::string& name) const { return op_.HasAttr(name); }

  /// A slot the kernel may fill with whatever it wants to keep between
  /// runs of this op (a oneDNN primitive and its bound memory, say), owned
  /// by the executor's prepared op; nullptr when the caller offers none.
  /// Kernels must check that what they kept still fits the inputs.
  std::shared_ptr<void>* kernel_state() const { return kernel_state_; }
  void set_kernel_state(std::shared_ptr<void>* slot) { kernel_state_ = slot; }

  Variable* InputVar(const std::string& slot) const;
  Variable* OutputVar(const std::string& slot) const;
  const std::vector<Variable*>& InputVars(const std::string& slot) const;
  const std::vector<Variable*>& OutputVars(const std::string& slot) const;

 private:
  const OperatorBase& op_;
  const Scope& scope_;
  const platform::DeviceContext& device_context_;
  const RuntimeContext& ctx_;
  std::shared_ptr<void>* kernel_state_ = nullptr;
};

/// Shape inference at run time: real input dims (and values of shape
/// tensors) are known.
class InferShapeContext {
 public:
  explicit InferShapeContext(const ExecutionContext& ctx) : ctx_(ctx) {}

  const OperatorBase& op() const { return ctx_.op(); }
  bool HasInput(const std::string& slot) const { return ctx_.HasInput(slot); }
  bool HasOutput(const std::string& slot) const { return ctx_.HasOutput(slot); }
  /// Dims of the first tensor of an input slot; throws NotFound naming the
  /// slot if absent. The tensor's own: valid until it is resized (take a
  /// copy to keep them past a SetOutputDim that may write it).
  const DDim& GetInputDim(const std::string& slot) const;
  std::vector<DDim> GetInputsDim(const std::string& slot) const;
  DataType GetInputDataType(const std::string& slot) const;
  const LoD& GetInputLoD(const std::string& slot) const;
  /// The input tensor itself, for ops whose output shape depends on values
  /// (shape tensors); a tensor on a device is returned as a host copy.
  const Tensor& GetInputTensor(const std::string& slot, size_t i = 0) const;

  /// Sets dims of an output (no-op when the output slot is absent).
  void SetOutputDim(const std::string& slot, const DDim& dims) const;
  void SetOutputsDim(const std::string& slot,
                     const std::vector<DDim>& dims) const;
  void SetOutputLoD(const std::string& slot, const LoD& lod) const;
  /// Output LoD := input LoD (Paddle's default for most ops).
  void ShareLoD(const std::string& in, const std::string& out) const;

  template <typename T>
  T Attr(const std::string& name) const {
    return ctx_.Attr<T>(name);
  }
  const ExecutionContext& exec_context() const { return ctx_; }

  /// True once GetInputTensor() was called: the output shapes may depend on
  /// input values, not only on input shapes (plan replay re-infers them).
  bool read_values() const { return read_values_; }
  /// The variables whose values GetInputTensor() handed out.
  const std::vector<std::string>& read_variables() const {
    return read_variables_;
  }

 private:
  const Tensor& InputTensor(const std::string& slot, size_t i) const;

  const ExecutionContext& ctx_;
  mutable bool read_values_ = false;
  mutable std::vector<std::string> read_variables_;
  mutable std::vector<std::unique_ptr<Tensor>> host_copies_;
};

}  // namespace framework
}  // namespace paddle_lite
