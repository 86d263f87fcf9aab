#include "tools/fuzz/program_mutator.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

namespace paddle_lite {
namespace fuzz {
namespace {

using framework::Attribute;
using framework::ProgramDesc;

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

}  // namespace

std::string MutateProgram(ProgramDesc* program,
                          int edits,
                          std::mt19937_64* rng) {
  std::vector<Site> sites = Sites(*program);
  if (sites.empty()) return "";
  std::ostringstream log;
  for (int n = 0; n < edits; ++n) {
    const Site& site = sites[(*rng)() % sites.size()];
    auto& block = program->blocks[site.block];
    std::string change;
    if (site.kind == Site::kDim) {
      auto& var = block.vars[site.index];
      int64_t* dim = &var.dims[site.element];
      change = "var " + var.name + " dim " + std::to_string(site.element) +
               ": " + Replace(dim, HostileInteger(*dim, rng));
    } else {
      auto& op = block.ops[site.index];
      Attribute& value = op.attrs.at(site.attr);
      std::string where = "op #" + std::to_string(site.index) + " " + op.type +
                          " " + site.attr +
                          (site.list ? "[" + std::to_string(site.element) + "]"
                                     : std::string()) +
                          ": ";
      if (site.kind == Site::kAttrInt) {
        int32_t* slot =
            site.list ? &std::get<std::vector<int32_t>>(value)[site.element]
                      : &std::get<int32_t>(value);
        change =
            where +
            Replace(slot, static_cast<int32_t>(HostileInteger(*slot, rng)));
      } else if (site.kind == Site::kAttrLong) {
        int64_t* slot =
            site.list ? &std::get<std::vector<int64_t>>(value)[site.element]
                      : &std::get<int64_t>(value);
        change = where + Replace(slot, HostileInteger(*slot, rng));
      } else {
        float* slot = site.list
                          ? &std::get<std::vector<float>>(value)[site.element]
                          : &std::get<float>(value);
        change = where + Replace(slot, ToFloat(HostileFloat(*slot, rng)));
      }
    }
    log << "block " << site.block << " " << change << "\n";
  }
  return log.str();
}

}  // namespace fuzz
}  // namespace paddle_lite
