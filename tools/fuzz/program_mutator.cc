#include "tools/fuzz/program_mutator.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <sstream>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace paddle_lite {
namespace fuzz {
namespace {

using framework::Attribute;
using framework::AttrType;
using framework::DataType;
using framework::OpDesc;
using framework::ProgramDesc;
using framework::VarDesc;
using framework::VarNameMap;

// One integer or float a mutation can replace.
struct Site {
  enum Kind { kAttrInt, kAttrLong, kAttrFloat, kDim } kind;
  int block = 0;
  int index = 0;  // op index, or var index for kDim
  std::string attr;
  size_t element = 0;  // within a list attribute or dims
  bool list = false;
};

// Wraps like two's complement (in uint64_t, defined) so that old±1 of an
// extreme value is the other extreme, as a corrupted file would hold.
int64_t Wrapped(uint64_t v) { return static_cast<int64_t>(v); }

int64_t HostileInteger(int64_t old, std::mt19937_64* rng) {
  const uint64_t u = static_cast<uint64_t>(old);
  const int64_t choices[] = {
      std::numeric_limits<int32_t>::max(),
      std::numeric_limits<int32_t>::min(),
      std::numeric_limits<int64_t>::max(),
      std::numeric_limits<int64_t>::min(),
      -1,
      0,
      1,
      2,
      3,
      -2,
      1000000,
      -1000000,
      65537,
      Wrapped(u + 1),
      Wrapped(u - 1),
      Wrapped(u * 2),
      Wrapped(0 - u),
      Wrapped(u * 1000),
  };
  return choices[(*rng)() % (sizeof(choices) / sizeof(choices[0]))];
}

double HostileFloat(double old, std::mt19937_64* rng) {
  const double choices[] = {
      std::numeric_limits<double>::quiet_NaN(),
      std::numeric_limits<double>::infinity(),
      -std::numeric_limits<double>::infinity(),
      1e30,
      -1e30,
      0.0,
      -1.0,
      1e-30,
      old * 1000,
      -old,
  };
  return choices[(*rng)() % (sizeof(choices) / sizeof(choices[0]))];
}

// Beyond float's range is infinity, written out rather than left to the
// conversion.
float ToFloat(double v) {
  if (v > std::numeric_limits<float>::max()) {
    return std::numeric_limits<float>::infinity();
  }
  if (v < -std::numeric_limits<float>::max()) {
    return -std::numeric_limits<float>::infinity();
  }
  return static_cast<float>(v);
}

std::vector<Site> Sites(const ProgramDesc& program) {
  std::vector<Site> sites;
  for (size_t b = 0; b < program.blocks.size(); ++b) {
    const auto& block = program.blocks[b];
    for (size_t i = 0; i < block.ops.size(); ++i) {
      for (const auto& [name, value] : block.ops[i].attrs) {
        Site site{Site::kAttrInt, static_cast<int>(b), static_cast<int>(i),
                  name};
        if (std::holds_alternative<int32_t>(value)) {
          sites.push_back(site);
        } else if (std::holds_alternative<int64_t>(value)) {
          site.kind = Site::kAttrLong;
          sites.push_back(site);
        } else if (std::holds_alternative<float>(value)) {
          site.kind = Site::kAttrFloat;
          sites.push_back(site);
        } else if (auto* ints = std::get_if<std::vector<int32_t>>(&value)) {
          site.list = true;
          for (size_t e = 0; e < ints->size(); ++e) {
            site.element = e;
            sites.push_back(site);
          }
        } else if (auto* longs = std::get_if<std::vector<int64_t>>(&value)) {
          site.kind = Site::kAttrLong;
          site.list = true;
          for (size_t e = 0; e < longs->size(); ++e) {
            site.element = e;
            sites.push_back(site);
          }
        } else if (auto* floats = std::get_if<std::vector<float>>(&value)) {
          site.kind = Site::kAttrFloat;
          site.list = true;
          for (size_t e = 0; e < floats->size(); ++e) {
            site.element = e;
            sites.push_back(site);
          }
        }
      }
    }
    for (size_t v = 0; v < block.vars.size(); ++v) {
      for (size_t e = 0; e < block.vars[v].dims.size(); ++e) {
        Site site{Site::kDim, static_cast<int>(b), static_cast<int>(v), ""};
        site.element = e;
        sites.push_back(site);
      }
    }
  }
  return sites;
}

template <typename T>
std::string Replace(T* slot, T value) {
  std::ostringstream os;
  os << +*slot << " -> " << +value;
  *slot = value;
  return os.str();
}

size_t Pick(size_t n, std::mt19937_64* rng) { return (*rng)() % n; }

std::string OpWhere(int block, size_t index, const OpDesc& op) {
  return "block " + std::to_string(block) + " op #" + std::to_string(index) +
         " " + op.type;
}

// A hostile integer or float in an attribute or a declared dim.
std::string EditValue(ProgramDesc* program, std::mt19937_64* rng) {
  const std::vector<Site> sites = Sites(*program);
  if (sites.empty()) return "";
  const Site& site = sites[Pick(sites.size(), rng)];
  auto& block = program->blocks[site.block];
  std::string change;
  if (site.kind == Site::kDim) {
    auto& var = block.vars[site.index];
    int64_t* dim = &var.dims[site.element];
    change = "var " + var.name + " dim " + std::to_string(site.element) + ": " +
             Replace(dim, HostileInteger(*dim, rng));
  } else {
    auto& op = block.ops[site.index];
    Attribute& value = op.attrs.at(site.attr);
    std::string where =
        "op #" + std::to_string(site.index) + " " + op.type + " " + site.attr +
        (site.list ? "[" + std::to_string(site.element) + "]" : std::string()) +
        ": ";
    if (site.kind == Site::kAttrInt) {
      int32_t* slot = site.list
                          ? &std::get<std::vector<int32_t>>(value)[site.element]
                          : &std::get<int32_t>(value);
      change = where +
               Replace(slot, static_cast<int32_t>(HostileInteger(*slot, rng)));
    } else if (site.kind == Site::kAttrLong) {
      int64_t* slot = site.list
                          ? &std::get<std::vector<int64_t>>(value)[site.element]
                          : &std::get<int64_t>(value);
      change = where + Replace(slot, HostileInteger(*slot, rng));
    } else {
      float* slot = site.list
                        ? &std::get<std::vector<float>>(value)[site.element]
                        : &std::get<float>(value);
      change = where + Replace(slot, ToFloat(HostileFloat(*slot, rng)));
    }
  }
  return "block " + std::to_string(site.block) + " " + change;
}

// An op's attribute, by block, op index and name.
struct AttrSite {
  int block;
  size_t op;
  std::string name;
};

std::vector<AttrSite> AttrSites(const ProgramDesc& program) {
  std::vector<AttrSite> sites;
  for (size_t b = 0; b < program.blocks.size(); ++b) {
    const auto& ops = program.blocks[b].ops;
    for (size_t i = 0; i < ops.size(); ++i) {
      for (const auto& [name, value] : ops[i].attrs) {
        sites.push_back({static_cast<int>(b), i, name});
      }
    }
  }
  return sites;
}

std::string AttrText(const Attribute& attr) {
  return std::string(framework::AttrTypeName(framework::TypeOf(attr))) + " " +
         framework::AttrToString(attr);
}

// Saturates (NaN is 0): the mutator itself runs under UBSan.
template <typename I>
I ToInteger(double d) {
  if (std::isnan(d)) return 0;
  if (d >= static_cast<double>(std::numeric_limits<I>::max())) {
    return std::numeric_limits<I>::max();
  }
  if (d <= static_cast<double>(std::numeric_limits<I>::lowest())) {
    return std::numeric_limits<I>::lowest();
  }
  return static_cast<I>(d);
}

double NumberOf(double v) { return v; }
double NumberOf(const framework::BlockRef& b) { return b.idx; }
double NumberOf(const framework::Scalar& s) { return s.ToDouble(); }

// What an attribute holds, kept across a change of its type: its numbers
// (a scalar as one) or its strings (a string read as a number is strtod's).
struct AttrValues {
  std::vector<double> numbers;
  std::vector<std::string> strings;
};

AttrValues ValuesOf(const Attribute& attr) {
  AttrValues v;
  std::visit(
      [&v](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_arithmetic_v<T>) {
          v.numbers.push_back(static_cast<double>(x));
        } else if constexpr (std::is_same_v<T, std::string>) {
          v.strings.push_back(x);
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          v.strings = x;
        } else if constexpr (std::is_same_v<T, framework::VarNameRef>) {
          v.strings.push_back(x.name);
        } else if constexpr (std::is_same_v<T, framework::VarNameRefs>) {
          v.strings = x.names;
        } else if constexpr (std::is_same_v<T, framework::BlockRef> ||
                             std::is_same_v<T, framework::Scalar>) {
          v.numbers.push_back(NumberOf(x));
        } else {
          for (auto e : x) v.numbers.push_back(NumberOf(e));
        }
      },
      attr);
  if (v.numbers.empty()) {
    for (const auto& s : v.strings) {
      v.numbers.push_back(std::strtod(s.c_str(), nullptr));
    }
  }
  if (v.strings.empty()) {
    for (double d : v.numbers) {
      std::ostringstream os;
      os << d;
      v.strings.push_back(os.str());
    }
  }
  return v;
}

template <typename T, typename F>
std::vector<T> Each(const std::vector<double>& numbers, F convert) {
  std::vector<T> out;
  for (double d : numbers) out.push_back(convert(d));
  return out;
}

// `v` as an attribute of `type`: a scalar takes the first value (0 or ""
// if none), a list all of them.
Attribute Make(AttrType type, const AttrValues& v) {
  const double first = v.numbers.empty() ? 0 : v.numbers[0];
  switch (type) {
    case AttrType::kInt:
      return ToInteger<int32_t>(first);
    case AttrType::kLong:
      return ToInteger<int64_t>(first);
    case AttrType::kFloat:
      return ToFloat(first);
    case AttrType::kFloat64:
      return first;
    case AttrType::kBoolean:
      return first != 0;
    case AttrType::kScalar: {
      framework::Scalar s;
      s.r = first;
      return s;
    }
    case AttrType::kString:
      return v.strings.empty() ? std::string() : v.strings[0];
    case AttrType::kInts:
      return Each<int32_t>(v.numbers, ToInteger<int32_t>);
    case AttrType::kLongs:
      return Each<int64_t>(v.numbers, ToInteger<int64_t>);
    case AttrType::kFloats:
      return Each<float>(v.numbers, ToFloat);
    case AttrType::kFloat64s:
      return v.numbers;
    case AttrType::kBooleans:
      return Each<bool>(v.numbers, [](double d) { return d != 0; });
    default:
      return v.strings;  // kStrings
  }
}

// An attribute stored with another type than the op's (a conv's groups as
// FLOAT 0.0 or BOOLEAN false divided by zero once): int, long, float,
// double, bool, scalar, string, a scalar as a one-element list and back,
// a list of another element type, or an empty list.
std::string EditAttrType(ProgramDesc* program, std::mt19937_64* rng) {
  const std::vector<AttrSite> sites = AttrSites(*program);
  if (sites.empty()) return "";
  const AttrSite& site = sites[Pick(sites.size(), rng)];
  OpDesc& op = program->blocks[site.block].ops[site.op];
  Attribute& attr = op.attrs.at(site.name);
  const AttrValues values = ValuesOf(attr);
  static const AttrType kTypes[] = {
      AttrType::kInt,     AttrType::kLong,     AttrType::kFloat,
      AttrType::kFloat64, AttrType::kBoolean,  AttrType::kScalar,
      AttrType::kString,  AttrType::kInts,     AttrType::kLongs,
      AttrType::kFloats,  AttrType::kFloat64s, AttrType::kBooleans,
      AttrType::kStrings};
  constexpr size_t kCount = sizeof(kTypes) / sizeof(kTypes[0]);
  constexpr size_t kFirstList = 7;  // kTypes[kFirstList..] are lists
  Attribute changed;
  if (Pick(6, rng) == 0) {
    // Empty, of the attribute's own list type if it is a list.
    const AttrType type = framework::TypeOf(attr);
    const bool list = std::find(std::begin(kTypes) + kFirstList,
                                std::end(kTypes), type) != std::end(kTypes);
    changed = Make(
        list ? type : kTypes[kFirstList + Pick(kCount - kFirstList, rng)], {});
  } else {
    size_t i = Pick(kCount, rng);
    if (kTypes[i] == framework::TypeOf(attr)) {
      i = (i + 1 + Pick(kCount - 1, rng)) % kCount;
    }
    changed = Make(kTypes[i], values);
  }
  std::string line = OpWhere(site.block, site.op, op) + " " + site.name + ": " +
                     AttrText(attr) + " -> " + AttrText(changed);
  attr = std::move(changed);
  return line;
}

// An attribute left out: the op's reader gets its default, or nothing.
std::string EditRemoveAttr(ProgramDesc* program, std::mt19937_64* rng) {
  const std::vector<AttrSite> sites = AttrSites(*program);
  if (sites.empty()) return "";
  const AttrSite& site = sites[Pick(sites.size(), rng)];
  OpDesc& op = program->blocks[site.block].ops[site.op];
  auto it = op.attrs.find(site.name);
  std::string line = OpWhere(site.block, site.op, op) + " " + site.name + ": " +
                     AttrText(it->second) + " -> removed";
  op.attrs.erase(it);
  return line;
}

// One argument of an op's input or output slot.
struct ArgSite {
  int block;
  size_t op;
  bool output;
  size_t slot;
  size_t arg;
};

std::vector<ArgSite> ArgSites(const ProgramDesc& program, bool outputs) {
  std::vector<ArgSite> sites;
  for (size_t b = 0; b < program.blocks.size(); ++b) {
    const auto& ops = program.blocks[b].ops;
    for (size_t i = 0; i < ops.size(); ++i) {
      const VarNameMap& map = outputs ? ops[i].outputs : ops[i].inputs;
      for (size_t s = 0; s < map.size(); ++s) {
        for (size_t a = 0; a < map[s].second.size(); ++a) {
          sites.push_back({static_cast<int>(b), i, outputs, s, a});
        }
      }
    }
  }
  return sites;
}

std::string ArgWhere(const ArgSite& site, const OpDesc& op) {
  const VarNameMap& map = site.output ? op.outputs : op.inputs;
  return OpWhere(site.block, site.op, op) +
         (site.output ? " output " : " input ") + map[site.slot].first + "[" +
         std::to_string(site.arg) + "]";
}

// A name no var of the program has.
std::string Undeclared(const std::string& name) { return name + ".undeclared"; }

std::string VarText(const framework::BlockDesc& block,
                    const std::string& name) {
  const VarDesc* var = block.FindVar(name);
  if (var == nullptr) return name + " (undeclared)";
  return name + " (" + framework::DataTypeName(var->dtype) + " " +
         framework::DimsToString(var->dims) + ")";
}

// An output renamed: to one of the op's own inputs (it then overwrites
// what it reads: pool2d resized its input before reading it), to another
// var of the block (written twice, or a weight overwritten), or to a name
// no var has.
std::string EditRenameOutput(ProgramDesc* program, std::mt19937_64* rng) {
  const std::vector<ArgSite> sites = ArgSites(*program, true);
  if (sites.empty()) return "";
  const ArgSite& site = sites[Pick(sites.size(), rng)];
  const auto& block = program->blocks[site.block];
  OpDesc& op = program->blocks[site.block].ops[site.op];
  std::string& name = op.outputs[site.slot].second[site.arg];
  std::vector<std::pair<std::string, std::string>> inputs;  // name, slot
  for (const auto& [slot, args] : op.inputs) {
    for (const auto& arg : args) {
      if (arg != name) inputs.emplace_back(arg, slot);
    }
  }
  std::vector<std::string> vars;
  for (const VarDesc& var : block.vars) {
    if (var.name != name) vars.push_back(var.name);
  }
  const size_t choice = Pick(4, rng);
  std::string to, why;
  if (choice < 2 && !inputs.empty()) {
    const auto& input = inputs[Pick(inputs.size(), rng)];
    to = input.first;
    why = "its input " + input.second;
  } else if (choice < 3 && !vars.empty()) {
    to = vars[Pick(vars.size(), rng)];
    why = "a var of the block";
  } else {
    to = Undeclared(name);
    why = "declared nowhere";
  }
  std::string line =
      ArgWhere(site, op) + ": " + name + " -> " + to + " (" + why + ")";
  name = to;
  return line;
}

// An input renamed to another var of the block, preferably one of another
// rank or element type than the op reads there (or, now and then, to a
// name no var has).
std::string EditRenameInput(ProgramDesc* program, std::mt19937_64* rng) {
  const std::vector<ArgSite> sites = ArgSites(*program, false);
  if (sites.empty()) return "";
  const ArgSite& site = sites[Pick(sites.size(), rng)];
  const auto& block = program->blocks[site.block];
  OpDesc& op = program->blocks[site.block].ops[site.op];
  std::string& name = op.inputs[site.slot].second[site.arg];
  const VarDesc* old = block.FindVar(name);
  std::vector<std::string> unlike, others;
  for (const VarDesc& var : block.vars) {
    if (var.name == name) continue;
    others.push_back(var.name);
    if (old == nullptr || var.dtype != old->dtype ||
        var.dims.size() != old->dims.size() || var.kind != old->kind) {
      unlike.push_back(var.name);
    }
  }
  const std::vector<std::string>& pool = unlike.empty() ? others : unlike;
  std::string to = pool.empty() || Pick(8, rng) == 0
                       ? Undeclared(name)
                       : pool[Pick(pool.size(), rng)];
  std::string line = ArgWhere(site, op) + ": " + VarText(block, name) + " -> " +
                     VarText(block, to);
  name = to;
  return line;
}

// A slot one argument short (an empty slot where one was needed), or with
// one argument twice (concat of x with x, an output written twice).
std::string EditArgumentCount(ProgramDesc* program,
                              bool drop,
                              std::mt19937_64* rng) {
  std::vector<ArgSite> sites = ArgSites(*program, false);
  const std::vector<ArgSite> outputs = ArgSites(*program, true);
  sites.insert(sites.end(), outputs.begin(), outputs.end());
  if (sites.empty()) return "";
  const ArgSite& site = sites[Pick(sites.size(), rng)];
  OpDesc& op = program->blocks[site.block].ops[site.op];
  auto& args = (site.output ? op.outputs : op.inputs)[site.slot].second;
  const std::string name = args[site.arg];
  std::string line = ArgWhere(site, op) + ": " + name;
  if (drop) {
    args.erase(args.begin() + site.arg);
    return line + " -> dropped (" + std::to_string(args.size()) + " left)";
  }
  args.insert(args.begin() + Pick(args.size() + 1, rng), name);
  return line + " -> duplicated (" + std::to_string(args.size()) + " now)";
}

// Vars with a tensor desc (what a file records dtype and lod_level of).
std::vector<std::pair<int, size_t>> VarSites(const ProgramDesc& program,
                                             bool tensors_only) {
  std::vector<std::pair<int, size_t>> sites;
  for (size_t b = 0; b < program.blocks.size(); ++b) {
    const auto& vars = program.blocks[b].vars;
    for (size_t v = 0; v < vars.size(); ++v) {
      const int kind = vars[v].kind;
      if (!tensors_only ||
          kind == static_cast<int>(framework::VarKind::kLoDTensor) ||
          kind == static_cast<int>(framework::VarKind::kLoDTensorArray)) {
        sites.emplace_back(static_cast<int>(b), v);
      }
    }
  }
  return sites;
}

enum class VarEdit { kDtype, kPersistable, kLodLevel };

// A var declared with another element type (a weight or feed made up in
// it, a kernel chosen by it), flipped persistable (a weight that is
// computed, an activation read from the parameter file) or another LoD
// level.
std::string EditVar(ProgramDesc* program, VarEdit edit, std::mt19937_64* rng) {
  const auto sites = VarSites(*program, edit != VarEdit::kPersistable);
  if (sites.empty()) return "";
  const auto [b, v] = sites[Pick(sites.size(), rng)];
  VarDesc& var = program->blocks[b].vars[v];
  std::ostringstream line;
  line << "block " << b << " var " << var.name << std::boolalpha;
  if (edit == VarEdit::kDtype) {
    static const DataType kTypes[] = {DataType::kBool,    DataType::kInt16,
                                      DataType::kInt32,   DataType::kInt64,
                                      DataType::kFloat16, DataType::kFloat32,
                                      DataType::kFloat64, DataType::kUInt8,
                                      DataType::kInt8,    DataType::kBFloat16};
    constexpr size_t kCount = sizeof(kTypes) / sizeof(kTypes[0]);
    size_t i = Pick(kCount, rng);
    if (kTypes[i] == var.dtype) i = (i + 1 + Pick(kCount - 1, rng)) % kCount;
    line << " dtype: " << var.dtype << " -> " << kTypes[i];
    var.dtype = kTypes[i];
  } else if (edit == VarEdit::kPersistable) {
    line << " persistable: " << var.persistable << " -> " << !var.persistable;
    var.persistable = !var.persistable;
  } else {
    const int kLevels[] = {0, 1, 2, 3, -1, std::numeric_limits<int32_t>::max()};
    constexpr size_t kCount = sizeof(kLevels) / sizeof(kLevels[0]);
    size_t i = Pick(kCount, rng);
    if (kLevels[i] == var.lod_level) i = (i + 1) % kCount;
    line << " lod_level: " << var.lod_level << " -> " << kLevels[i];
    var.lod_level = kLevels[i];
  }
  return line.str();
}

// One edit of the kind drawn: a hostile value a third of the time, as
// before; the others (each ~7%) break types, names and declarations.
std::string EditOnce(ProgramDesc* program, std::mt19937_64* rng) {
  switch (Pick(15, rng)) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
      return EditValue(program, rng);
    case 5:
      return EditAttrType(program, rng);
    case 6:
      return EditRemoveAttr(program, rng);
    case 7:
      return EditRenameOutput(program, rng);
    case 8:
      return EditRenameInput(program, rng);
    case 9:
      return EditArgumentCount(program, /*drop=*/true, rng);
    case 10:
      return EditArgumentCount(program, /*drop=*/false, rng);
    case 11:
      return EditVar(program, VarEdit::kDtype, rng);
    case 12:
      return EditVar(program, VarEdit::kPersistable, rng);
    default:
      return EditVar(program, VarEdit::kLodLevel, rng);
  }
}

}  // namespace

std::string MutateProgram(ProgramDesc* program,
                          int edits,
                          std::mt19937_64* rng) {
  std::ostringstream log;
  for (int n = 0; n < edits; ++n) {
    // A kind with nothing to edit (no attributes, no vars) draws again; a
    // program with nothing at all to edit stays as it is.
    for (int tries = 0; tries < 32; ++tries) {
      const std::string change = EditOnce(program, rng);
      if (!change.empty()) {
        log << change << "\n";
        break;
      }
    }
  }
  return log.str();
}

}  // namespace fuzz
}  // namespace paddle_lite
