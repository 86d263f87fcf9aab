// A named slot in a Scope holding one value of any type: a Tensor for most
// variables, a TensorList for feed/fetch lists and tensor arrays, step
// scopes for control flow.
#pragma once

#include <memory>
#include <typeindex>
#include <typeinfo>
#include <vector>

#include "framework/tensor.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace framework {

/// The value of `feed`/`fetch` variables and of LOD_TENSOR_ARRAY vars.
using TensorList = std::vector<Tensor>;

class Variable {
 public:
  /// The held value as T, created (default-constructed) if empty. Throws
  /// PreconditionNotMet if the variable holds another type.
  template <typename T>
  T* GetMutable() {
    if (!holder_) {
      holder_.reset(new Holder<T>());
    } else {
      CheckType(typeid(T));
    }
    return static_cast<T*>(holder_->Ptr());
  }

  template <typename T>
  const T& Get() const {
    PADDLE_ENFORCE(holder_ != nullptr,
                   platform::errors::PreconditionNotMet(
                       "Variable is not initialized."));
    CheckType(typeid(T));
    return *static_cast<const T*>(holder_->Ptr());
  }

  template <typename T>
  bool IsType() const {
    return holder_ && holder_->Type() == typeid(T);
  }
  bool IsInitialized() const { return holder_ != nullptr; }
  void Clear() { holder_.reset(); }

 private:
  struct Placeholder {
    virtual ~Placeholder() = default;
    virtual void* Ptr() = 0;
    virtual std::type_index Type() const = 0;
  };
  template <typename T>
  struct Holder : Placeholder {
    void* Ptr() override { return &value; }
    std::type_index Type() const override { return typeid(T); }
    T value;
  };
  void CheckType(const std::type_info& requested) const;

  std::unique_ptr<Placeholder> holder_;
};

}  // namespace framework
}  // namespace paddle_lite
