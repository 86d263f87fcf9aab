// What an op declares: its input and output slots and its attributes with
// types, defaults and checks. Written by an op's Maker (see op_registry.h):
//
//   void Make() override {
//     AddInput("X", "the input");
//     AddOutput("Out", "max(x, 0)");
//     AddAttr<float>("alpha", "slope for x < 0").SetDefault(0.02f);
//   }
#pragma once

#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "framework/attribute.h"

namespace paddle_lite {
namespace framework {

struct OpSlotProto {
  std::string name;
  std::string comment;
  bool dispensable = false;  // may be absent or empty
  bool duplicable = false;   // takes a list of variables
  bool extra = false;        // training/backend only; never read
  // An output no kernel writes: it names the input it would update in
  // training (batch_norm's MeanOut names its Mean, a model weight).
  bool never_written = false;
  // The input slot whose buffer this output shares rather than writes
  // (reshape2's Out is a view of X); empty for an ordinary output.
  std::string view_of{};
};

struct OpAttrProto {
  std::string name;
  std::string comment;
  AttrType type = AttrType::kInt;
  std::optional<Attribute> default_value;  // none = required
  /// Each throws InvalidArgument (message without op prefix) on a bad value.
  std::vector<std::function<void(const Attribute&)>> checkers;
};

struct OpProto {
  std::string type;
  std::string comment;
  std::vector<OpSlotProto> inputs;
  std::vector<OpSlotProto> outputs;
  std::vector<OpAttrProto> attrs;

  const OpSlotProto* FindInput(const std::string& name) const;
  const OpSlotProto* FindOutput(const std::string& name) const;
  const OpAttrProto* FindAttr(const std::string& name) const;
};

/// Fluent setter for one slot.
class SlotBuilder {
 public:
  explicit SlotBuilder(OpSlotProto* slot) : slot_(slot) {}
  SlotBuilder& AsDispensable() {
    slot_->dispensable = true;
    return *this;
  }
  SlotBuilder& AsDuplicable() {
    slot_->duplicable = true;
    return *this;
  }
  /// Training-only (e.g. XShape, MeanOut): implies dispensable.
  SlotBuilder& AsExtra() {
    slot_->extra = true;
    slot_->dispensable = true;
    return *this;
  }
  /// An output whose kernels share input slot `input`'s buffer (a view).
  SlotBuilder& ViewOf(const std::string& input) {
    slot_->view_of = input;
    return *this;
  }
  /// An extra output no kernel writes (see OpSlotProto::never_written).
  SlotBuilder& NeverWritten() {
    AsExtra();
    slot_->never_written = true;
    return *this;
  }

 private:
  OpSlotProto* slot_;
};

template <typename T>
struct AttrTypeOf;
#define PDLITE_ATTR_TYPE_OF(CPP, TYPE) \
  template <>                          \
  struct AttrTypeOf<CPP> {             \
    static constexpr AttrType value = AttrType::TYPE; \
  };
PDLITE_ATTR_TYPE_OF(int32_t, kInt)
PDLITE_ATTR_TYPE_OF(float, kFloat)
PDLITE_ATTR_TYPE_OF(std::string, kString)
PDLITE_ATTR_TYPE_OF(std::vector<int32_t>, kInts)
PDLITE_ATTR_TYPE_OF(std::vector<float>, kFloats)
PDLITE_ATTR_TYPE_OF(std::vector<std::string>, kStrings)
PDLITE_ATTR_TYPE_OF(bool, kBoolean)
PDLITE_ATTR_TYPE_OF(std::vector<bool>, kBooleans)
PDLITE_ATTR_TYPE_OF(BlockRef, kBlock)
PDLITE_ATTR_TYPE_OF(int64_t, kLong)
PDLITE_ATTR_TYPE_OF(std::vector<int64_t>, kLongs)
PDLITE_ATTR_TYPE_OF(std::vector<double>, kFloat64s)
PDLITE_ATTR_TYPE_OF(double, kFloat64)
PDLITE_ATTR_TYPE_OF(std::vector<Scalar>, kScalars)
#undef PDLITE_ATTR_TYPE_OF

/// Fluent setter for one attribute of C++ type T.
template <typename T>
class AttrBuilder {
 public:
  explicit AttrBuilder(OpAttrProto* attr) : attr_(attr) {}
  AttrBuilder& SetDefault(const T& value) {
    attr_->default_value = Attribute(value);
    return *this;
  }
  /// Value must be one of `values`.
  AttrBuilder& InEnum(std::vector<T> values) {
    std::string name = attr_->name;
    attr_->checkers.push_back([name, values](const Attribute& a) {
      T v = AttrCast<T>(a);
      for (auto& ok : values) {
        if (v == ok) return;
      }
      std::string list;
      for (auto& ok : values) list += (list.empty() ? "" : ", ") + ToText(ok);
      PADDLE_THROW(platform::errors::InvalidArgument(
          "attribute '", name, "' is ", ToText(v), ", expected one of {",
          list, "}."));
    });
    return *this;
  }
  /// Any custom check: fn(value) throws InvalidArgument on a bad value.
  AttrBuilder& AddCustomChecker(std::function<void(const T&)> fn) {
    attr_->checkers.push_back(
        [fn](const Attribute& a) { fn(AttrCast<T>(a)); });
    return *this;
  }
  AttrBuilder& GreaterThan(const T& bound) {
    std::string name = attr_->name;
    return AddCustomChecker([name, bound](const T& v) {
      PADDLE_ENFORCE(v > bound, platform::errors::InvalidArgument(
                                    "attribute '", name, "' is ", v,
                                    ", expected > ", bound, "."));
    });
  }

 private:
  template <typename U>
  static std::string ToText(const U& v) {
    if constexpr (std::is_same_v<U, std::string>) {
      return "'" + v + "'";
    } else {
      return std::to_string(v);
    }
  }
  OpAttrProto* attr_;
};

/// Base of every op's Maker: override Make() and declare slots and attrs.
class OpProtoAndCheckerMaker {
 public:
  virtual ~OpProtoAndCheckerMaker() = default;
  virtual void Make() = 0;

  /// Runs Make() and returns the proto (with `type` set).
  OpProto Build(const std::string& type);

 protected:
  SlotBuilder AddInput(const std::string& name, const std::string& comment);
  SlotBuilder AddOutput(const std::string& name, const std::string& comment);
  template <typename T>
  AttrBuilder<T> AddAttr(const std::string& name, const std::string& comment) {
    OpAttrProto attr;
    attr.name = name;
    attr.comment = comment;
    attr.type = AttrTypeOf<T>::value;
    attrs_.push_back(std::move(attr));
    return AttrBuilder<T>(&attrs_.back());
  }
  void AddComment(const std::string& comment) { comment_ = comment; }

 private:
  // deques keep builder pointers valid while Make() adds more.
  std::deque<OpSlotProto> inputs_;
  std::deque<OpSlotProto> outputs_;
  std::deque<OpAttrProto> attrs_;
  std::string comment_;
};

}  // namespace framework
}  // namespace paddle_lite
