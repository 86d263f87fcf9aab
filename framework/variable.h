// A named slot in a Scope holding one value of any type: a Tensor for most
// variables, a TensorList for feed/fetch lists and tensor arrays, step
// scopes for control flow.
#pragma once

#include <memory>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include "framework/tensor.h"
#include "platform/enforce.h"

namespace paddle_lite {
namespace framework {

/// The value of `feed`/`fetch` variables and of LOD_TENSOR_ARRAY vars.
using TensorList = std::vector<Tensor>;

class Variable {
 public:
  Variable() = default;
  Variable(Variable&& other) noexcept
      : holder_(std::move(other.holder_)),
        type_(std::exchange(other.type_, nullptr)),
        value_(std::exchange(other.value_, nullptr)) {}
  Variable& operator=(Variable&& other) noexcept {
    holder_ = std::move(other.holder_);
    type_ = std::exchange(other.type_, nullptr);
    value_ = std::exchange(other.value_, nullptr);
    return *this;
  }

  /// The held value as T, created (default-constructed) if empty. Throws
  /// PreconditionNotMet if the variable holds another type.
  template <typename T>
  T* GetMutable() {
    if (!holder_) {
      auto* holder = new Holder<T>();
      holder_.reset(holder);
      type_ = &typeid(T);
      value_ = &holder->value;
    } else if (type_ != &typeid(T)) {
      CheckType(typeid(T));
    }
    return static_cast<T*>(value_);
  }

  template <typename T>
  const T& Get() const {
    if (type_ != &typeid(T)) CheckType(typeid(T));
    return *static_cast<const T*>(value_);
  }

  template <typename T>
  bool IsType() const {
    return type_ == &typeid(T) || (type_ != nullptr && *type_ == typeid(T));
  }
  bool IsInitialized() const { return holder_ != nullptr; }
  void Clear() {
    holder_.reset();
    type_ = nullptr;
    value_ = nullptr;
  }

 private:
  struct Placeholder {
    virtual ~Placeholder() = default;
  };
  template <typename T>
  struct Holder : Placeholder {
    T value;
  };
  // Throws unless the variable holds `requested`: called where `type_` is
  // not that type_info object (empty, another type, or the same type's
  // object of another shared library, which compares equal).
  void CheckType(const std::type_info& requested) const;

  std::unique_ptr<Placeholder> holder_;
  // The held value and its type, kept beside the holder: variables are
  // read several times per op, and a virtual call and a type_index per
  // read were a twentieth of a new input shape's run.
  const std::type_info* type_ = nullptr;
  void* value_ = nullptr;
};

}  // namespace framework
}  // namespace paddle_lite
