#include "serve/types.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

namespace pdlite {
namespace serve {

using paddle_lite::DataType;

namespace {
struct TypeName {
  DataType type;
  const char* name;
  size_t size;
};
// The types a Tensor handle copies.
constexpr TypeName kTypes[] = {
    {DataType::FLOAT32, "FP32", 4}, {DataType::FLOAT64, "FP64", 8},
    {DataType::FLOAT16, "FP16", 2}, {DataType::BFLOAT16, "BF16", 2},
    {DataType::INT8, "INT8", 1},    {DataType::UINT8, "UINT8", 1},
    {DataType::INT16, "INT16", 2},  {DataType::INT32, "INT32", 4},
    {DataType::INT64, "INT64", 8},  {DataType::BOOL, "BOOL", 1},
};
}  // namespace

const char* ProtocolTypeName(DataType type) {
  for (auto& t : kTypes) {
    if (t.type == type) return t.name;
  }
  return "UNKNOWN";
}

Status TensorData::CopyElements(char* out) const {
  if (read_shared_memory) {
    Status read = read_shared_memory(out);
    if (!read.ok()) return read;
  } else {
    const std::string_view from = elements();
    if (!from.empty()) std::memcpy(out, from.data(), from.size());
  }
  // A BOOL is one byte that kernels read as a C++ bool, 0 or 1: another
  // byte from binary data or shared memory would be undefined there. Any
  // nonzero byte is true, as the C API takes it.
  if (type == DataType::BOOL) {
    const size_t n = element_bytes();
    for (size_t i = 0; i < n; ++i) out[i] = out[i] != 0 ? 1 : 0;
  }
  return Status{};
}

Status TensorData::ReadSharedMemory() {
  if (!read_shared_memory) return Status{};
  std::string read(static_cast<size_t>(shared_memory.byte_size), '\0');
  Status status = read_shared_memory(read.data());
  if (!status.ok()) return status;
  bytes = std::move(read);
  borrowed = std::string_view();
  read_shared_memory = nullptr;
  return Status{};
}

const char* DatatypeName(const TensorData& tensor) {
  return tensor.is_bytes ? "BYTES" : ProtocolTypeName(tensor.type);
}

bool ParseProtocolType(const std::string& name, DataType* type) {
  for (auto& t : kTypes) {
    if (name == t.name) {
      *type = t.type;
      return true;
    }
  }
  return false;
}

const std::string& ProtocolTypeNames() {
  static const std::string names = [] {
    std::string out;
    for (auto& t : kTypes) out += std::string(out.empty() ? "" : ", ") + t.name;
    return out;
  }();
  return names;
}

std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> names;
  size_t at = 0;
  for (;;) {
    const size_t slash = path.find('/', at);
    names.push_back(path.substr(at, slash - at));
    if (slash == std::string::npos) return names;
    at = slash + 1;
  }
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    out += (i ? "," : "") + std::to_string(shape[i]);
  }
  return out + "]";
}

size_t ElementSize(DataType type) {
  for (auto& t : kTypes) {
    if (t.type == type) return t.size;
  }
  return 0;
}

std::string HostForAddress(const std::string& host) {
  if (host.find(':') == std::string::npos || host.front() == '[') return host;
  return "[" + host + "]";
}

bool IsModelName(const std::string& name) {
  const bool control_byte = std::any_of(name.begin(), name.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
  });
  // NAME_MAX: no folder's name is longer.
  return !name.empty() && name.size() <= 255 && name != "." && name != ".." &&
         name.find('/') == std::string::npos && !control_byte &&
         simdjson::validate_utf8(name.data(), name.size());
}

std::string LoggedText(const std::string& text, size_t max_bytes) {
  const bool utf8 = simdjson::validate_utf8(text.data(), text.size());
  size_t kept = std::min(text.size(), max_bytes);
  // Cut at a character's start.
  while (utf8 && kept > 0 && kept < text.size() &&
         (static_cast<unsigned char>(text[kept]) & 0xC0) == 0x80) {
    --kept;
  }
  std::string out;
  out.reserve(kept + 16);
  for (size_t i = 0; i < kept; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x20 || byte == 0x7F || byte == '\\' ||
        (!utf8 && byte >= 0x80)) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += static_cast<char>(byte);
    }
  }
  if (kept < text.size()) {
    out += "... (" + std::to_string(text.size() - kept) + " bytes more)";
  }
  return out;
}

bool JsonWithinShape(const std::string& text,
                     int max_depth,
                     size_t max_values) {
  int depth = 0;
  size_t values = 0;
  return ForEachByteOutsideStrings(text, [&](size_t* i) {
    switch (text[*i]) {
      case '[':
      case '{':
        if (++depth > max_depth) return false;
        [[fallthrough]];
      case ',':
        return ++values <= max_values;
      case ']':
      case '}':
        --depth;
        return true;
      default:
        return true;
    }
  });
}

bool ParseJson(const std::string& text,
               nlohmann::json* parsed,
               std::string* error) {
  using nlohmann::json;
  // The keys seen in the object open at each depth (a key's depth is one
  // past its object's). An object clears its depth's set as it starts:
  // the one there before it has ended. Objects in a dropped value start
  // too, though they are not seen to end.
  std::vector<std::set<std::string>> keys;
  const json::parser_callback_t keep_first =
      [&keys](int depth, json::parse_event_t event, json& value) {
        const size_t at = static_cast<size_t>(depth);
        if (event == json::parse_event_t::object_start) {
          if (keys.size() < at + 2) keys.resize(at + 2);
          keys[at + 1].clear();
        } else if (event == json::parse_event_t::key && at < keys.size()) {
          return keys[at].insert(value.get<std::string>()).second;
        }
        return true;
      };
  try {
    *parsed = json::parse(text, keep_first);
  } catch (const json::exception& e) {
    *error = e.what();
    return false;
  }
  return true;
}

}  // namespace serve
}  // namespace pdlite
