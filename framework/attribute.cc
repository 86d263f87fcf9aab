#include "framework/attribute.h"

#include <cstdint>
#include <sstream>
#include <type_traits>

#include "platform/element_convert.h"

namespace paddle_lite {
namespace framework {

double Scalar::ToDouble() const {
  switch (kind) {
    case kBool:
      return b ? 1.0 : 0.0;
    case kInt64:
      return static_cast<double>(i);
    default:
      return r;
  }
}

bool Scalar::operator==(const Scalar& o) const {
  return kind == o.kind && b == o.b && i == o.i && r == o.r && imag == o.imag;
}

const char* AttrTypeName(AttrType type) {
  static const char* kNames[] = {
      "INT",      "FLOAT",    "STRING", "INTS",    "FLOATS", "STRINGS",
      "BOOLEAN",  "BOOLEANS", "BLOCK",  "LONG",    "BLOCKS", "LONGS",
      "FLOAT64S", "VAR",      "VARS",   "FLOAT64", "SCALAR", "SCALARS"};
  int i = static_cast<int>(type);
  return (i >= 0 && i < 18) ? kNames[i] : "UNKNOWN";
}

namespace {

// A floating-point attribute read as an integer truncates toward zero. NaN
// or a value outside int64 (undefined in C++; a float list such as
// assign_value's fp32_values may hold -inf or 1e19) gives int64's lowest,
// as x86's conversion to int64 and the cast kernels do (read as int32,
// that is then narrowed to its low 32 bits, 0).
int64_t TruncateToInt64(double d) {
  return platform::ConvertElement<int64_t>(d);
}

// Holds the numeric value of a scalar-typed attribute, if it has one.
bool NumericValue(const Attribute& a, double* d, int64_t* l) {
  switch (TypeOf(a)) {
    case AttrType::kInt:
      *l = std::get<int32_t>(a);
      *d = static_cast<double>(*l);
      return true;
    case AttrType::kLong:
      *l = std::get<int64_t>(a);
      *d = static_cast<double>(*l);
      return true;
    case AttrType::kBoolean:
      *l = std::get<bool>(a) ? 1 : 0;
      *d = static_cast<double>(*l);
      return true;
    case AttrType::kFloat:
      *d = std::get<float>(a);
      *l = TruncateToInt64(*d);
      return true;
    case AttrType::kFloat64:
      *d = std::get<double>(a);
      *l = TruncateToInt64(*d);
      return true;
    case AttrType::kScalar: {
      const auto& s = std::get<Scalar>(a);
      *d = s.ToDouble();
      *l = s.kind == Scalar::kInt64 ? s.i : TruncateToInt64(*d);
      return true;
    }
    case AttrType::kBlock:
      *l = std::get<BlockRef>(a).idx;
      *d = static_cast<double>(*l);
      return true;
    default:
      return false;
  }
}

// Holds the list as doubles (and int64s, exact) if it is a numeric list.
bool NumericList(const Attribute& a,
                 std::vector<double>* d,
                 std::vector<int64_t>* l) {
  auto fill = [&](const auto& v) {
    for (auto x : v) {
      d->push_back(static_cast<double>(x));
      if constexpr (std::is_floating_point_v<decltype(x)>) {
        l->push_back(TruncateToInt64(x));
      } else {
        l->push_back(static_cast<int64_t>(x));
      }
    }
    return true;
  };
  switch (TypeOf(a)) {
    case AttrType::kInts:
      return fill(std::get<std::vector<int32_t>>(a));
    case AttrType::kLongs:
      return fill(std::get<std::vector<int64_t>>(a));
    case AttrType::kFloats:
      return fill(std::get<std::vector<float>>(a));
    case AttrType::kFloat64s:
      return fill(std::get<std::vector<double>>(a));
    case AttrType::kBooleans: {
      for (bool x : std::get<std::vector<bool>>(a)) {
        d->push_back(x ? 1 : 0);
        l->push_back(x ? 1 : 0);
      }
      return true;
    }
    case AttrType::kScalars:
      for (const auto& s : std::get<std::vector<Scalar>>(a)) {
        d->push_back(s.ToDouble());
        l->push_back(s.kind == Scalar::kInt64 ? s.i
                                              : TruncateToInt64(s.ToDouble()));
      }
      return true;
    default:
      return false;
  }
}

template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};

[[noreturn]] void BadCast(const Attribute& a, const char* wanted) {
  PADDLE_THROW(platform::errors::InvalidArgument(
      "attribute of type ", AttrTypeName(TypeOf(a)), " cannot be read as ",
      wanted, "."));
}

}  // namespace

template <typename T>
T AttrCast(const Attribute& attr) {
  if (auto* exact = std::get_if<T>(&attr)) return *exact;
  if constexpr (std::is_same_v<T, std::string> ||
                std::is_same_v<T, std::vector<std::string>> ||
                std::is_same_v<T, VarNameRef> ||
                std::is_same_v<T, VarNameRefs> ||
                std::is_same_v<T, std::vector<BlockRef>> ||
                std::is_same_v<T, Scalar> ||
                std::is_same_v<T, std::vector<Scalar>>) {
    BadCast(attr, typeid(T).name());
  } else if constexpr (std::is_same_v<T, BlockRef>) {
    // Only a BLOCK attribute: a number read as a block would escape the
    // checks of sub-block references, which look at BLOCK attributes.
    BadCast(attr, "BLOCK");
  } else if constexpr (IsVector<T>::value) {
    using E = typename T::value_type;
    std::vector<double> d;
    std::vector<int64_t> l;
    if (!NumericList(attr, &d, &l)) BadCast(attr, "a numeric list");
    T out;
    for (size_t i = 0; i < d.size(); ++i) {
      if constexpr (std::is_integral_v<E>) {
        out.push_back(static_cast<E>(l[i]));
      } else {
        out.push_back(static_cast<E>(d[i]));
      }
    }
    return out;
  } else {
    double d;
    int64_t l;
    if (!NumericValue(attr, &d, &l)) BadCast(attr, "a number");
    if constexpr (std::is_same_v<T, bool>) {
      return d != 0;
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(l);
    } else {
      return static_cast<T>(d);
    }
  }
}

template int32_t AttrCast<int32_t>(const Attribute&);
template int64_t AttrCast<int64_t>(const Attribute&);
template float AttrCast<float>(const Attribute&);
template double AttrCast<double>(const Attribute&);
template bool AttrCast<bool>(const Attribute&);
template std::string AttrCast<std::string>(const Attribute&);
template std::vector<int32_t> AttrCast<std::vector<int32_t>>(const Attribute&);
template std::vector<int64_t> AttrCast<std::vector<int64_t>>(const Attribute&);
template std::vector<float> AttrCast<std::vector<float>>(const Attribute&);
template std::vector<double> AttrCast<std::vector<double>>(const Attribute&);
template std::vector<bool> AttrCast<std::vector<bool>>(const Attribute&);
template std::vector<std::string> AttrCast<std::vector<std::string>>(
    const Attribute&);
template BlockRef AttrCast<BlockRef>(const Attribute&);
template std::vector<BlockRef> AttrCast<std::vector<BlockRef>>(
    const Attribute&);
template VarNameRef AttrCast<VarNameRef>(const Attribute&);
template VarNameRefs AttrCast<VarNameRefs>(const Attribute&);
template Scalar AttrCast<Scalar>(const Attribute&);
template std::vector<Scalar> AttrCast<std::vector<Scalar>>(const Attribute&);

std::string AttrToString(const Attribute& attr) {
  std::ostringstream os;
  auto list = [&os](const auto& v) {
    os << "[";
    size_t n = 0;
    for (const auto& x : v) {
      if (n) os << ", ";
      if (++n > 8) {
        os << "... (" << v.size() << " items)";
        break;
      }
      os << x;
    }
    os << "]";
  };
  switch (TypeOf(attr)) {
    case AttrType::kInt:
      os << std::get<int32_t>(attr);
      break;
    case AttrType::kFloat:
      os << std::get<float>(attr);
      break;
    case AttrType::kString:
      os << '"' << std::get<std::string>(attr) << '"';
      break;
    case AttrType::kInts:
      list(std::get<std::vector<int32_t>>(attr));
      break;
    case AttrType::kFloats:
      list(std::get<std::vector<float>>(attr));
      break;
    case AttrType::kStrings:
      list(std::get<std::vector<std::string>>(attr));
      break;
    case AttrType::kBoolean:
      os << (std::get<bool>(attr) ? "true" : "false");
      break;
    case AttrType::kBooleans: {
      std::vector<int> v;
      for (bool b : std::get<std::vector<bool>>(attr)) v.push_back(b);
      list(v);
      break;
    }
    case AttrType::kBlock:
      os << "block " << std::get<BlockRef>(attr).idx;
      break;
    case AttrType::kLong:
      os << std::get<int64_t>(attr);
      break;
    case AttrType::kBlocks: {
      std::vector<int> v;
      for (auto b : std::get<std::vector<BlockRef>>(attr)) v.push_back(b.idx);
      list(v);
      break;
    }
    case AttrType::kLongs:
      list(std::get<std::vector<int64_t>>(attr));
      break;
    case AttrType::kFloat64s:
      list(std::get<std::vector<double>>(attr));
      break;
    case AttrType::kVar:
      os << std::get<VarNameRef>(attr).name;
      break;
    case AttrType::kVars:
      list(std::get<VarNameRefs>(attr).names);
      break;
    case AttrType::kFloat64:
      os << std::get<double>(attr);
      break;
    case AttrType::kScalar:
      os << std::get<Scalar>(attr).ToDouble();
      break;
    case AttrType::kScalars: {
      std::vector<double> v;
      for (auto& s : std::get<std::vector<Scalar>>(attr)) {
        v.push_back(s.ToDouble());
      }
      list(v);
      break;
    }
  }
  return os.str();
}

}  // namespace framework
}  // namespace paddle_lite
