// Op attributes as read from a program. The variant's index equals
// PaddlePaddle's AttrType number, so a value round-trips to the file with
// its original type. Attr<T>() converts numerically where Paddle versions
// disagree (is_test as INT or BOOLEAN, shape as INTS or LONGS).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "platform/enforce.h"

namespace paddle_lite {
namespace framework {

/// A sub-block reference (AttrType BLOCK).
struct BlockRef {
  int32_t idx = 0;
  bool operator==(const BlockRef& o) const { return idx == o.idx; }
};
/// AttrType VAR / VARS: variable names.
struct VarNameRef {
  std::string name;
  bool operator==(const VarNameRef& o) const { return name == o.name; }
};
struct VarNameRefs {
  std::vector<std::string> names;
  bool operator==(const VarNameRefs& o) const { return names == o.names; }
};
/// AttrType SCALAR: a typed number (2.5+ files).
struct Scalar {
  enum Kind { kBool = 1, kInt64 = 2, kFloat64 = 3, kComplex128 = 4 };
  Kind kind = kFloat64;
  bool b = false;
  int64_t i = 0;
  double r = 0;
  double imag = 0;
  double ToDouble() const;
  bool operator==(const Scalar& o) const;
};

enum class AttrType {
  kInt = 0,
  kFloat = 1,
  kString = 2,
  kInts = 3,
  kFloats = 4,
  kStrings = 5,
  kBoolean = 6,
  kBooleans = 7,
  kBlock = 8,
  kLong = 9,
  kBlocks = 10,
  kLongs = 11,
  kFloat64s = 12,
  kVar = 13,
  kVars = 14,
  kFloat64 = 15,
  kScalar = 16,
  kScalars = 17,
};

using Attribute = std::variant<int32_t,                   // INT
                               float,                     // FLOAT
                               std::string,               // STRING
                               std::vector<int32_t>,      // INTS
                               std::vector<float>,        // FLOATS
                               std::vector<std::string>,  // STRINGS
                               bool,                      // BOOLEAN
                               std::vector<bool>,         // BOOLEANS
                               BlockRef,                  // BLOCK
                               int64_t,                   // LONG
                               std::vector<BlockRef>,     // BLOCKS
                               std::vector<int64_t>,      // LONGS
                               std::vector<double>,       // FLOAT64S
                               VarNameRef,                // VAR
                               VarNameRefs,               // VARS
                               double,                    // FLOAT64
                               Scalar,                    // SCALAR
                               std::vector<Scalar>>;      // SCALARS

using AttributeMap = std::map<std::string, Attribute>;

inline AttrType TypeOf(const Attribute& a) {
  return static_cast<AttrType>(a.index());
}
const char* AttrTypeName(AttrType type);

/// Converts an attribute to T. Scalars convert between int, int64, float,
/// double and bool; lists between int, int64, float, double, bool lists and
/// scalar lists. Anything else throws InvalidArgument naming both types.
/// Supported T: the scalar and vector types of Attribute above.
template <typename T>
T AttrCast(const Attribute& attr);

/// Short text of a value for inspect output and messages.
std::string AttrToString(const Attribute& attr);

}  // namespace framework
}  // namespace paddle_lite
