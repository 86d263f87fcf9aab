#include "tools/pdlite/shape_stream.h"

#include <fstream>
#include <set>
#include <sstream>

namespace pdlite {

uint64_t SplitMix64::Next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

namespace {

// One dimension of a spec: a fixed value or LO, LO+STEP, ..., <= HI.
struct DimRange {
  int64_t lo = 0;
  int64_t step = 1;
  int64_t count = 1;
};

struct InputSpec {
  std::string name;
  std::vector<DimRange> dims;
};

bool ParseInt(const std::string& text, int64_t* value) {
  if (text.empty()) return false;
  size_t used = 0;
  try {
    *value = std::stoll(text, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used == text.size();
}

std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, sep)) parts.push_back(part);
  if (!text.empty() && text.back() == sep) parts.emplace_back();
  return parts;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// "x=1x3x[320:928:32]x640;y=..." -> specs.
std::string ParseSpec(const std::string& text, std::vector<InputSpec>* out) {
  for (const std::string& raw : Split(text, ';')) {
    std::string item = Trim(raw);
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
      return "'" + item + "' is not NAME=D0xD1x...";
    }
    InputSpec spec;
    spec.name = item.substr(0, eq);
    for (const std::string& dim : Split(item.substr(eq + 1), 'x')) {
      DimRange range;
      if (!dim.empty() && dim.front() == '[' && dim.back() == ']') {
        auto parts = Split(dim.substr(1, dim.size() - 2), ':');
        int64_t hi = 0;
        if (parts.size() < 2 || parts.size() > 3 ||
            !ParseInt(parts[0], &range.lo) || !ParseInt(parts[1], &hi) ||
            (parts.size() == 3 && !ParseInt(parts[2], &range.step)) ||
            range.step < 1 || hi < range.lo || range.lo < 0) {
          return "bad range '" + dim + "' in '" + item +
                 "' (want [LO:HI] or [LO:HI:STEP], 0 <= LO <= HI, STEP >= 1)";
        }
        range.count = (hi - range.lo) / range.step + 1;
      } else if (!ParseInt(dim, &range.lo) || range.lo < 0) {
        return "bad dimension '" + dim + "' in '" + item + "'";
      }
      spec.dims.push_back(range);
    }
    out->push_back(std::move(spec));
  }
  return "";
}

}  // namespace

std::string SampleToString(const ShapeSample& sample) {
  std::string s;
  for (size_t i = 0; i < sample.size(); ++i) {
    s += (i ? ";" : "") + sample[i].name + "=";
    for (size_t d = 0; d < sample[i].dims.size(); ++d) {
      s += (d ? "x" : "") + std::to_string(sample[i].dims[d]);
    }
  }
  return s;
}

std::string MakeShapeStream(const std::string& spec,
                            int samples,
                            uint64_t seed,
                            std::vector<ShapeSample>* stream) {
  stream->clear();
  if (!spec.empty() && spec.front() == '@') {
    std::ifstream file(spec.substr(1));
    if (!file) return "cannot read shape file " + spec.substr(1);
    std::string line;
    int line_no = 0;
    while (std::getline(file, line)) {
      ++line_no;
      line = Trim(line.substr(0, line.find('#')));
      if (line.empty()) continue;
      std::vector<InputSpec> specs;
      std::string problem = ParseSpec(line, &specs);
      for (auto& s : specs) {
        for (auto& d : s.dims) {
          if (problem.empty() && d.count != 1) {
            problem =
                "a shape file takes fixed dims, not ranges (give ranges "
                "in --shapes itself)";
          }
        }
      }
      if (!problem.empty()) {
        return spec.substr(1) + ":" + std::to_string(line_no) + ": " + problem;
      }
      ShapeSample sample;
      for (auto& s : specs) {
        InputShape shape{s.name, {}};
        for (auto& d : s.dims) shape.dims.push_back(d.lo);
        sample.push_back(std::move(shape));
      }
      stream->push_back(std::move(sample));
    }
    if (stream->empty()) return spec.substr(1) + " lists no shapes";
    return "";
  }
  if (samples < 1) return "--samples must be >= 1";
  std::vector<InputSpec> specs;
  std::string problem = ParseSpec(spec, &specs);
  if (!problem.empty()) return problem;
  double space = 1;
  for (auto& s : specs) {
    for (auto& d : s.dims) space *= static_cast<double>(d.count);
  }
  SplitMix64 rng(seed);
  std::set<std::string> seen;
  while (static_cast<int>(stream->size()) < samples) {
    ShapeSample sample;
    for (auto& s : specs) {
      InputShape shape{s.name, {}};
      for (auto& d : s.dims) {
        const int64_t pick =
            d.count == 1 ? 0
                         : static_cast<int64_t>(rng.Next() %
                                                static_cast<uint64_t>(d.count));
        shape.dims.push_back(d.lo + d.step * pick);
      }
      sample.push_back(std::move(shape));
    }
    // Distinct while unseen shapes remain.
    if (!seen.insert(SampleToString(sample)).second &&
        static_cast<double>(seen.size()) < space) {
      continue;
    }
    stream->push_back(std::move(sample));
  }
  return "";
}

}  // namespace pdlite
