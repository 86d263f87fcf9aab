#include "serve/http_codec.h"

#include <simdjson.h>
#include <strings.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>
#include <type_traits>
#include <vector>

#include "serve/classification.h"

namespace pdlite {
namespace serve {

// Request bodies are parsed with simdjson: a body of tensor data as JSON
// text is mostly numbers, and simdjson decoded the OCR classifier's
// request (27,648 numbers) in 0.38 ms against 3.6 with nlohmann-json's
// DOM, into a tape of 8 bytes a value rather than a node each. Responses
// are written here directly, numbers with std::to_chars (100,000 floats
// in 4 ms against 16 through nlohmann-json); nlohmann-json quotes their
// strings.
static_assert(kBodyPaddingBytes >= simdjson::SIMDJSON_PADDING,
              "request bodies must leave simdjson its padding");

namespace dom = simdjson::dom;
using paddle_lite::DataType;

namespace {

Status Bad(std::string message) {
  return Status::Error(StatusCode::kInvalidArgument, std::move(message));
}

// JSON has no NaN or infinity, yet Triton reads the tokens rapidjson's
// kParseNanAndInfFlag takes (NaN, Inf and Infinity, each optionally
// signed), which Python's json writes. simdjson refuses them, so a body
// that fails to parse and holds them outside strings is parsed again with
// each replaced by a marker string: a NUL, then the token. A marker is
// read as its number only by floating-point inputs, and only in a body
// that was rewritten (where a client's own string of a NUL and a token
// would read the same; no client writes one).

// The non-finite token at the start of `text` ("-Infinity"...), or an
// empty view when there is none.
std::string_view NonFiniteTokenAt(std::string_view text) {
  const size_t sign = !text.empty() && text[0] == '-' ? 1 : 0;
  for (std::string_view word : {"NaN", "Infinity", "Inf"}) {
    if (text.substr(sign, word.size()) != word) continue;
    const size_t end = sign + word.size();
    // "NaNa" or "Infx" is no token: left as it is, it fails the parse.
    if (end < text.size() &&
        std::isalnum(static_cast<unsigned char>(text[end]))) {
      return {};
    }
    return text.substr(0, end);
  }
  return {};
}

// `json` with every non-finite token where a value goes (not in strings,
// nor as an object's key, which rapidjson refuses too) replaced by its
// marker; false when it has none.
bool MarkNonFiniteTokens(std::string_view json, std::string* marked) {
  bool found = false;
  size_t copied = 0;
  std::vector<char> open;  // '{' and '[' of the containers around
  bool key_next = false;   // in an object, before its next key's colon
  ForEachByteOutsideStrings(json, [&](size_t* i) {
    const char c = json[*i];
    switch (c) {
      case '{':
      case '[':
        open.push_back(c);
        key_next = c == '{';
        return true;
      case '}':
      case ']':
        if (!open.empty()) open.pop_back();
        key_next = false;
        return true;
      case ':':
        key_next = false;
        return true;
      case ',':
        key_next = !open.empty() && open.back() == '{';
        return true;
      default:
        break;
    }
    if ((c != '-' && c != 'N' && c != 'I') || key_next) return true;
    const std::string_view token = NonFiniteTokenAt(json.substr(*i));
    if (token.empty()) return true;
    if (!found) marked->reserve(json.size() + 64);
    found = true;
    marked->append(json.substr(copied, *i - copied));
    marked->append("\"\\u0000").append(token).push_back('"');
    *i += token.size() - 1;
    copied = *i + 1;
    return true;
  });
  if (found) marked->append(json.substr(copied));
  return found;
}

// The token a marker stands for; empty when `value` is not a marker.
std::string_view MarkedToken(dom::element value) {
  std::string_view text;
  if (value.get_string().get(text) != simdjson::SUCCESS || text.empty() ||
      text[0] != '\0') {
    return {};
  }
  const std::string_view token = NonFiniteTokenAt(text.substr(1));
  return token.size() + 1 == text.size() ? token : std::string_view();
}

// The number a marker stands for; false when `value` is not a marker.
bool MarkedNonFinite(dom::element value, double* number) {
  const std::string_view token = MarkedToken(value);
  if (token.empty()) return false;
  if (token.find('N') != std::string_view::npos) {
    *number = std::numeric_limits<double>::quiet_NaN();
  } else {
    *number = token[0] == '-' ? -std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::infinity();
  }
  return true;
}

// The text of a JSON value, for messages; long ones are cut, and a
// marker is shown as its token, alone or within.
std::string Shown(dom::element value) {
  constexpr size_t kShownBytes = 80;
  const std::string minified = simdjson::minify(value);
  constexpr std::string_view kMark = "\"\\u0000";
  std::string text;
  size_t from = 0;
  for (size_t at = minified.find(kMark); at != std::string::npos;
       at = minified.find(kMark, at + 1)) {
    const std::string_view token =
        NonFiniteTokenAt(std::string_view(minified).substr(at + kMark.size()));
    const size_t end = at + kMark.size() + token.size();
    if (token.empty() || end >= minified.size() || minified[end] != '"') {
      continue;
    }
    text.append(minified, from, at - from).append(token);
    from = end + 1;
  }
  text.append(minified, from, std::string::npos);
  if (text.size() > kShownBytes) text = text.substr(0, kShownBytes) + "...";
  return text;
}

// The member `key` of `object`, or false when it has none.
bool Member(dom::object object, std::string_view key, dom::element* value) {
  return object.at_key(key).get(*value) == simdjson::SUCCESS;
}

// A JSON string's text; false when `value` is not a string, or is a
// non-finite token's marker (a number where a string goes).
bool GetString(dom::element value, std::string* out) {
  std::string_view text;
  if (value.get_string().get(text) != simdjson::SUCCESS ||
      !MarkedToken(value).empty()) {
    return false;
  }
  *out = std::string(text);
  return true;
}

// The string member `key` of `object`; false when it has none or it is
// not a string.
bool StringMember(dom::object object, std::string_view key, std::string* out) {
  dom::element value;
  return Member(object, key, &value) && GetString(value, out);
}

// A JSON integer >= 0 that fits int64.
bool GetCount(dom::element value, int64_t* count) {
  return value.get_int64().get(*count) == simdjson::SUCCESS && *count >= 0;
}

// FP16 and BF16 elements: 16-bit patterns, converted through float.
template <typename T>
constexpr bool kIsHalf = std::is_same_v<T, paddle_lite::float16> ||
                         std::is_same_v<T, paddle_lite::bfloat16>;

// `x` as a float rounded to odd: the float toward zero, with its last bit
// set when that lost anything. Rounding that float to nearest at 22 bits
// or fewer (float16's 11, bfloat16's 8) rounds `x` itself correctly: a
// float rounded to nearest could land exactly halfway between two values
// of the narrower type and then round the wrong way ("1.0004883" as FP16
// would give 1).
float RoundToOddFloat(long double x) {
  float f = static_cast<float>(x);
  if (static_cast<long double>(f) == x) return f;
  if (std::fabs(static_cast<long double>(f)) > std::fabs(x)) {
    f = std::nextafter(f, 0.0f);
  }
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  bits |= 1u;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// One JSON value as an element of type T (bool for BOOL); false when it
// is not one: a number of the wrong kind or out of T's range, a string, a
// null, an array. With `nonfinite_marked`, a floating-point T also takes
// the markers MarkNonFiniteTokens wrote.
template <typename T>
bool Convert(dom::element v, bool nonfinite_marked, T* out) {
  if constexpr (std::is_same_v<T, bool>) {
    return v.get_bool().get(*out) == simdjson::SUCCESS;
  } else if constexpr (kIsHalf<T>) {
    // The number as simdjson reads it (an integer exactly, a decimal as the
    // nearest double), then rounded once to T, to nearest even, through a
    // float rounded to odd; a value that would round to infinity is
    // refused, as for FP32. (A decimal of more than 17 digits within a
    // double's rounding of a tie between two T values may round the other
    // way, as with any reader that goes through a double: Triton's too.)
    long double exact;  // holds any int64, uint64 or double exactly
    int64_t i;
    uint64_t u;
    double d;
    if (nonfinite_marked && MarkedNonFinite(v, &d)) {
      *out = T(static_cast<float>(d));
      return true;
    }
    switch (v.type()) {
      case dom::element_type::INT64:
        if (v.get_int64().get(i) != simdjson::SUCCESS) return false;
        exact = i;
        break;
      case dom::element_type::UINT64:
        if (v.get_uint64().get(u) != simdjson::SUCCESS) return false;
        exact = u;
        break;
      default:
        if (v.get_double().get(d) != simdjson::SUCCESS) return false;
        exact = d;
        break;
    }
    *out = T(RoundToOddFloat(exact));
    return std::isfinite(static_cast<float>(*out));
  } else if constexpr (std::is_floating_point_v<T>) {
    // Integers too, converted once (through a double they could round
    // twice).
    int64_t i;
    uint64_t u;
    double d;
    if (nonfinite_marked && MarkedNonFinite(v, &d)) {
      *out = static_cast<T>(d);
      return true;
    }
    switch (v.type()) {
      case dom::element_type::INT64:
        if (v.get_int64().get(i) != simdjson::SUCCESS) return false;
        *out = static_cast<T>(i);
        return true;
      case dom::element_type::UINT64:
        if (v.get_uint64().get(u) != simdjson::SUCCESS) return false;
        *out = static_cast<T>(u);
        return true;
      default:
        break;
    }
    if (v.get_double().get(d) != simdjson::SUCCESS) return false;
    if constexpr (std::is_same_v<T, float>) {
      // A value that would round to infinity is refused. Below half an
      // ulp past the largest float it rounds to that float, which is how
      // the largest float's shortest text, 3.4028235e+38, reads.
      constexpr double kRoundsToInfinity = 0x1.ffffffp+127;
      if (std::fabs(d) >= kRoundsToInfinity) return false;
    }
    *out = static_cast<T>(d);
    return true;
  } else {
    int64_t i;
    uint64_t u;
    switch (v.type()) {
      case dom::element_type::INT64:
        if (v.get_int64().get(i) != simdjson::SUCCESS ||
            i < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
            (i > 0 &&
             static_cast<uint64_t>(i) >
                 static_cast<uint64_t>(std::numeric_limits<T>::max()))) {
          return false;
        }
        *out = static_cast<T>(i);
        return true;
      case dom::element_type::UINT64:
        if (v.get_uint64().get(u) != simdjson::SUCCESS ||
            u > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
          return false;
        }
        *out = static_cast<T>(u);
        return true;
      default:
        return false;  // not an integer
    }
  }
}

constexpr int kMaxDataDepth = 64;

// Counts the elements of a (possibly nested) array, so that they are
// written in place rather than appended one by one. False, with `bad` the
// array, when it nests deeper than kMaxDataDepth.
bool CountElements(dom::element data,
                   int depth,
                   size_t* count,
                   dom::element* bad) {
  dom::array array;
  if (data.get_array().get(array) != simdjson::SUCCESS) {
    ++*count;
    return true;
  }
  if (depth >= kMaxDataDepth) {
    *bad = data;
    return false;
  }
  for (dom::element v : array) {
    if (!CountElements(v, depth + 1, count, bad)) return false;
  }
  return true;
}

// Writes the elements of a counted array row major at `*at`. False, with
// `bad` the value and `*index` its flat position, at the first value that
// is not a T.
template <typename T>
bool WriteElements(dom::element data,
                   bool nonfinite_marked,
                   char** at,
                   size_t* index,
                   dom::element* bad) {
  dom::array array;
  if (data.get_array().get(array) == simdjson::SUCCESS) {
    for (dom::element v : array) {
      if (!WriteElements<T>(v, nonfinite_marked, at, index, bad)) return false;
    }
    return true;
  }
  T value;
  if (!Convert(data, nonfinite_marked, &value)) {
    *bad = data;
    return false;
  }
  if constexpr (std::is_same_v<T, bool>) {
    **at = value ? 1 : 0;
  } else {
    std::memcpy(*at, &value, sizeof(T));
  }
  *at += sizeof(T);
  ++*index;
  return true;
}

template <typename T>
bool Flatten(dom::element data,
             bool nonfinite_marked,
             std::string* bytes,
             size_t* index,
             dom::element* bad) {
  size_t count = 0;
  if (!CountElements(data, 0, &count, bad)) return false;
  bytes->resize(count * sizeof(T));
  char* at = bytes->data();
  return WriteElements<T>(data, nonfinite_marked, &at, index, bad);
}

// Whether a "data" array is regular: at each depth, arrays all of one
// length, or values, not both. A ragged one ([[1, 2], [3]]) has no one
// row-major order: read flat, its values would be laid out otherwise than
// its sender meant. A regular one of other dims than the input's shape
// is read as a reshape, as numpy's would be. `lengths` holds each depth's
// length (-1: values), as first seen.
bool IsRegular(dom::element data, size_t depth, std::vector<int64_t>* lengths) {
  dom::array array;
  const bool is_array = data.get_array().get(array) == simdjson::SUCCESS;
  const int64_t length = is_array ? static_cast<int64_t>(array.size()) : -1;
  if (lengths->size() == depth) {
    lengths->push_back(length);
  } else if ((*lengths)[depth] != length) {
    return false;
  }
  if (!is_array) return true;
  for (dom::element v : array) {
    if (!IsRegular(v, depth + 1, lengths)) return false;
  }
  return true;
}

// Flattens a JSON array of `type` values into its bytes, row major.
bool FlattenData(dom::element data,
                 DataType type,
                 bool nonfinite_marked,
                 std::string* bytes,
                 size_t* index,
                 dom::element* bad) {
  bool ok = false;
  VisitType(type, [&](auto element) {
    ok = Flatten<decltype(element)>(data, nonfinite_marked, bytes, index, bad);
  });
  return ok;
}

// The shared-memory extension's parameters of an input or a requested
// output: "shared_memory_region" and "shared_memory_byte_size" together,
// and "shared_memory_offset" (0 when not given) only with them.
Status DecodeSharedMemory(dom::object parameters,
                          const std::string& what,
                          SharedMemoryRef* ref) {
  dom::element region, size, offset;
  const bool has_region = Member(parameters, "shared_memory_region", &region);
  const bool has_size = Member(parameters, "shared_memory_byte_size", &size);
  const bool has_offset = Member(parameters, "shared_memory_offset", &offset);
  if (!has_region && !has_size && !has_offset) return Status{};
  if (!has_region || !has_size) {
    return Bad(what +
               "\"shared_memory_region\" and \"shared_memory_byte_size\" "
               "go together (and \"shared_memory_offset\" only with them)");
  }
  if (!GetString(region, &ref->region) || ref->region.empty()) {
    return Bad(what + "\"shared_memory_region\" must be a region's name");
  }
  int64_t n = 0;
  if (!GetCount(size, &n)) {
    return Bad(what + "\"shared_memory_byte_size\" must be an integer >= 0");
  }
  ref->byte_size = static_cast<uint64_t>(n);
  if (has_offset) {
    if (!GetCount(offset, &n)) {
      return Bad(what + "\"shared_memory_offset\" must be an integer >= 0");
    }
    ref->offset = static_cast<uint64_t>(n);
  }
  return Status{};
}

Status DecodeInput(dom::element in,
                   const std::string& body,
                   int64_t json_length,
                   bool nonfinite_marked,
                   size_t* binary_offset,
                   TensorData* t) {
  dom::object input;
  if (in.get_object().get(input) != simdjson::SUCCESS ||
      !StringMember(input, "name", &t->name)) {
    return Bad("every input needs a \"name\" string");
  }
  const std::string what = "input '" + t->name + "': ";
  std::string type_name;
  if (!StringMember(input, "datatype", &type_name)) {
    return Bad(what + "needs a \"datatype\" string");
  }
  if (!ParseProtocolType(type_name, &t->type)) {
    return Bad(what + "datatype '" + type_name + "' is not supported (" +
               ProtocolTypeNames() + ")");
  }
  dom::element shape;
  dom::array dims;
  if (!Member(input, "shape", &shape) ||
      shape.get_array().get(dims) != simdjson::SUCCESS) {
    return Bad(what + "needs a \"shape\" array");
  }
  for (dom::element d : dims) {
    int64_t dim;
    if (!GetCount(d, &dim)) {
      return Bad(what + "shape must hold integers >= 0, got " + Shown(shape));
    }
    t->shape.push_back(dim);
  }
  int64_t binary_size = -1;
  dom::element parameters_value;
  if (Member(input, "parameters", &parameters_value)) {
    dom::object parameters;
    if (parameters_value.get_object().get(parameters) != simdjson::SUCCESS) {
      return Bad(what + "\"parameters\" must be an object");
    }
    dom::element p;
    if (Member(parameters, "binary_data_size", &p) &&
        !GetCount(p, &binary_size)) {
      return Bad(what + "\"binary_data_size\" must be an integer >= 0");
    }
    Status status = DecodeSharedMemory(parameters, what, &t->shared_memory);
    if (!status.ok()) return status;
    if (Member(parameters, "lod", &p)) {
      dom::array levels;
      bool ok =
          p.get_array().get(levels) == simdjson::SUCCESS && levels.size() > 0;
      if (ok) {
        for (dom::element level : levels) {
          dom::array offsets;
          if (level.get_array().get(offsets) != simdjson::SUCCESS) {
            ok = false;
            break;
          }
          std::vector<size_t> level_offsets;
          for (dom::element o : offsets) {
            int64_t offset;
            if (!GetCount(o, &offset)) {
              ok = false;
              break;
            }
            level_offsets.push_back(static_cast<size_t>(offset));
          }
          if (!ok) break;
          t->lod.push_back(std::move(level_offsets));
        }
      }
      if (!ok) {
        return Bad(what +
                   "\"lod\" must be a list of levels of offsets, "
                   "e.g. [[0, 3, 5]]");
      }
    }
  }
  dom::element data;
  const bool has_data = Member(input, "data", &data);
  if (t->shared_memory.used()) {
    if (has_data || binary_size >= 0) {
      return Bad(what + "has shared_memory_region and also " +
                 (has_data ? "\"data\"" : "binary_data_size") +
                 "; send the elements one way");
    }
    return Status{};
  }
  if (binary_size >= 0) {
    if (has_data) {
      return Bad(what + "has both \"data\" and \"binary_data_size\"");
    }
    if (json_length < 0) {
      return Bad(what +
                 "\"binary_data_size\" without the "
                 "Inference-Header-Content-Length header");
    }
    if (static_cast<uint64_t>(binary_size) > body.size() - *binary_offset) {
      return Bad(what + "binary_data_size " + std::to_string(binary_size) +
                 " runs past the end of the body (" +
                 std::to_string(body.size() - *binary_offset) +
                 " bytes left after the earlier inputs)");
    }
    t->borrowed = std::string_view(body).substr(
        *binary_offset, static_cast<size_t>(binary_size));
    *binary_offset += static_cast<size_t>(binary_size);
    return Status{};
  }
  if (!has_data) {
    return Bad(what + "needs \"data\" or parameters.binary_data_size");
  }
  size_t index = 0;
  dom::element bad;
  if (!data.is_array() ||
      !FlattenData(data, t->type, nonfinite_marked, &t->bytes, &index, &bad)) {
    std::string why = "\"data\" must be an array of " + type_name + " values";
    if (data.is_array() && bad.is_array()) {
      why += "; it nests more than " + std::to_string(kMaxDataDepth) +
             " arrays deep";
    } else if (data.is_array()) {
      why += "; element " + std::to_string(index) + " (row major) is " +
             Shown(bad);
    }
    return Bad(what + why);
  }
  std::vector<int64_t> lengths;
  if (!IsRegular(data, 0, &lengths)) {
    return Bad(what +
               "\"data\" is ragged (arrays of different lengths, or arrays "
               "beside values, at one depth); give the values flat, or "
               "nested as shape " +
               ShapeString(t->shape) + " nests them");
  }
  return Status{};
}

// Strings are quoted by nlohmann-json; a name that is not UTF-8 has its
// bad bytes replaced rather than throwing.
void AppendQuoted(std::string* out, const std::string& s) {
  *out += nlohmann::json(s).dump(-1, ' ', false,
                                 nlohmann::json::error_handler_t::replace);
}

// An integer as JSON text.
template <typename T>
void AppendInteger(std::string* out, T value) {
  static_assert(std::is_integral_v<T>);
  char text[24];
  out->append(text, std::to_chars(text, text + sizeof(text), value).ptr);
}

// A float or double as JSON text at `at`, returning its end: the shortest
// text that reads back as the same value (std::to_chars). NaN and
// infinities, which JSON lacks, as the tokens Triton writes (NaN,
// Infinity, -Infinity), which Python's json and tritonclient read back.
template <typename F>
char* AppendFloatText(char* at, char* end, F v) {
  if (std::isnan(v)) return std::copy_n("NaN", 3, at);
  if (std::isinf(v)) {
    return v > 0 ? std::copy_n("Infinity", 8, at)
                 : std::copy_n("-Infinity", 9, at);
  }
  char* const text = at;
  at = std::to_chars(at, end, v).ptr;
  // An integral value keeps a fraction ("1.0", "-0.0", as nlohmann-json
  // wrote them): JSON readers take "1" for an integer, and "-0" for 0.
  if (std::find_if(text, at, [](char c) { return c == '.' || c == 'e'; }) ==
      at) {
    at = std::copy_n(".0", 2, at);
  }
  return at;
}

// The elements as JSON numbers (true and false for BOOL, bool's bytes read
// as bytes), comma separated. Floating point values are written as the
// shortest text that reads back as the same value of their type
// (std::to_chars); NaN and infinities as NaN, Infinity and -Infinity.
template <typename T>
void AppendValues(std::string* out, std::string_view bytes, size_t max_size) {
  // Written in chunks into room made for the longest texts (a double's
  // is 24 characters, "-2.2250738585072014e-308"), each cut to what was
  // written: the room is at most a chunk's more than the text.
  constexpr size_t kMaxText = 32;
  constexpr size_t kChunk = 4096;
  const size_t n = bytes.size() / sizeof(T);
  for (size_t first = 0; first < n && out->size() <= max_size;
       first += kChunk) {
    const size_t last = std::min(n, first + kChunk);
    const size_t start = out->size();
    out->resize(start + (last - first) * (kMaxText + 1));
    char* at = out->data() + start;
    char* const end = out->data() + out->size();
    for (size_t i = first; i < last; ++i) {
      if (i > 0) *at++ = ',';
      if constexpr (std::is_same_v<T, bool>) {
        const std::string_view text = bytes[i] != 0 ? "true" : "false";
        at = std::copy(text.begin(), text.end(), at);
        continue;
      }
      T v;
      std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
      if constexpr (kIsHalf<T>) {
        // As the float it widens to: that float's shortest text reads back
        // as the same float, which narrows back to the same bits.
        at = AppendFloatText(at, end, static_cast<float>(v));
      } else if constexpr (std::is_floating_point_v<T>) {
        at = AppendFloatText(at, end, v);
      } else if constexpr (sizeof(T) == 1) {
        at = std::to_chars(at, end, static_cast<int>(v)).ptr;  // a number
      } else {
        at = std::to_chars(at, end, v).ptr;
      }
    }
    out->resize(at - out->data());
  }
}

// A flat JSON array of the tensor's elements.
// Stops early (the array left open) once `*out` passes `max_size`.
void AppendData(std::string* out, const TensorData& t, size_t max_size) {
  *out += '[';
  if (t.is_bytes) {
    // The server makes these (classification), so they split.
    std::vector<std::string_view> elements;
    SplitBytesElements(t.elements(), &elements);
    for (size_t i = 0; i < elements.size() && out->size() <= max_size; ++i) {
      if (i > 0) *out += ',';
      AppendQuoted(out, std::string(elements[i]));
    }
    *out += ']';
    return;
  }
  VisitType(t.type, [&](auto element) {
    AppendValues<decltype(element)>(out, t.elements(), max_size);
  });
  *out += ']';
}

template <typename T>
void AppendList(std::string* out, const std::vector<T>& values) {
  *out += '[';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) *out += ',';
    AppendInteger(out, values[i]);
  }
  *out += ']';
}

}  // namespace

std::string OriginForm(const std::string& target) {
  size_t scheme = 0;
  if (strncasecmp(target.c_str(), "http://", 7) == 0) {
    scheme = 7;
  } else if (strncasecmp(target.c_str(), "https://", 8) == 0) {
    scheme = 8;
  } else {
    return target;
  }
  const size_t path = target.find('/', scheme);
  return path == std::string::npos ? "/" : target.substr(path);
}

bool ParseModelPath(const std::string& path,
                    std::string* model,
                    std::string* version,
                    std::string* action) {
  static const std::string kPrefix = "/v2/models/";
  if (path.compare(0, kPrefix.size(), kPrefix) != 0) return false;
  const std::vector<std::string> parts = SplitPath(path.substr(kPrefix.size()));
  for (const std::string& part : parts) {
    if (part.empty()) return false;
  }
  *model = parts[0];
  size_t next = 1;
  if (parts.size() >= 3 && parts[1] == "versions") {
    *version = parts[2];
    next = 3;
  }
  if (next == parts.size()) {
    action->clear();
    return true;
  }
  if (next + 1 == parts.size() &&
      (parts[next] == "ready" || parts[next] == "infer" ||
       parts[next] == "stats" || parts[next] == "config")) {
    *action = parts[next];
    return true;
  }
  return false;
}

Status DecodeInferRequest(const std::string& body,
                          int64_t json_length,
                          InferRequest* request,
                          WireOptions* options) {
  if (json_length > static_cast<int64_t>(body.size()) || json_length == 0 ||
      json_length < -1) {
    return Bad(json_length < -1
                   ? std::string("Inference-Header-Content-Length is not a "
                                 "byte count")
                   : "Inference-Header-Content-Length is " +
                         std::to_string(json_length) +
                         ", which must be at least 1 (the JSON header's "
                         "bytes) and at most the body's " +
                         std::to_string(body.size()) + " bytes");
  }
  const size_t header_size =
      json_length < 0 ? body.size() : static_cast<size_t>(json_length);
  // A parser per request: its buffers are a few times the JSON's size, so
  // they go with the request rather than stay with a thread.
  dom::parser parser;
  const bool padded =
      body.capacity() - header_size >= simdjson::SIMDJSON_PADDING;
  // A UTF-8 byte order mark, which JSON readers may ignore, is skipped.
  const size_t skip = body.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  dom::element root;
  if (header_size < skip) return Bad("the request is not valid JSON");
  const std::string_view json(body.data() + skip, header_size - skip);
  auto error = parser.parse(json.data(), json.size(), !padded).get(root);
  // Parsed again only when it failed: the tokens are rare.
  std::string marked;
  const bool nonfinite_marked = error && MarkNonFiniteTokens(json, &marked);
  if (nonfinite_marked) error = parser.parse(marked).get(root);
  if (error) {
    std::string message = std::string("the request is not valid JSON: ") +
                          simdjson::error_message(error);
    if (error == simdjson::NUMBER_ERROR) {
      message +=
          " (integers are read up to 64 bits, other numbers up to a "
          "double's range: write 1e20, not 100000000000000000000)";
    }
    return Bad(message);
  }
  dom::object j;
  if (root.get_object().get(j) != simdjson::SUCCESS) {
    return Bad("the request must be a JSON object");
  }
  dom::element value;
  if (Member(j, "id", &value) && !GetString(value, &request->id)) {
    return Bad("\"id\" must be a string");
  }
  if (Member(j, "parameters", &value)) {
    dom::object p;
    if (value.get_object().get(p) != simdjson::SUCCESS) {
      return Bad("\"parameters\" must be an object");
    }
    dom::element v;
    if (Member(p, "binary_data_output", &v) &&
        v.get_bool().get(options->binary_default) != simdjson::SUCCESS) {
      return Bad("parameter \"binary_data_output\" must be a boolean");
    }
    if (Member(p, "timeout", &v) && !GetCount(v, &request->timeout_us)) {
      return Bad("parameter \"timeout\" must be microseconds, an integer >= 0");
    }
  }
  dom::array inputs;
  if (!Member(j, "inputs", &value) ||
      value.get_array().get(inputs) != simdjson::SUCCESS) {
    return Bad("the request needs \"inputs\", an array");
  }
  size_t binary_offset = header_size;
  for (dom::element in : inputs) {
    TensorData t;
    Status status = DecodeInput(in, body, json_length, nonfinite_marked,
                                &binary_offset, &t);
    if (!status.ok()) return status;
    request->inputs.push_back(std::move(t));
  }
  if (binary_offset != body.size()) {
    return Bad("the body has " + std::to_string(body.size() - binary_offset) +
               " bytes after the JSON header that no input's "
               "binary_data_size accounts for");
  }
  if (Member(j, "outputs", &value)) {
    dom::array outputs;
    if (value.get_array().get(outputs) != simdjson::SUCCESS) {
      return Bad("\"outputs\" must be an array");
    }
    for (dom::element out : outputs) {
      dom::object output;
      std::string name;
      if (out.get_object().get(output) != simdjson::SUCCESS ||
          !StringMember(output, "name", &name)) {
        return Bad("every requested output needs a \"name\" string");
      }
      request->outputs.push_back(name);
      dom::element p;
      if (!Member(output, "parameters", &p)) continue;
      dom::object parameters;
      if (p.get_object().get(parameters) != simdjson::SUCCESS) {
        return Bad("output '" + name + "': \"parameters\" must be an object");
      }
      dom::element binary;
      bool as_binary = false;
      if (Member(parameters, "binary_data", &binary)) {
        if (binary.get_bool().get(as_binary) != simdjson::SUCCESS) {
          return Bad("output '" + name +
                     "': \"binary_data\" must be a boolean");
        }
        options->binary_output[name] = as_binary;
      }
      dom::element classes;
      if (Member(parameters, "classification", &classes)) {
        int64_t count = 0;
        if (!GetCount(classes, &count) || count < 1) {
          return Bad("output '" + name +
                     "': \"classification\" must be an integer >= 1 (how "
                     "many classes to return)");
        }
        request->classification[name] = count;
      }
      SharedMemoryRef ref;
      Status status =
          DecodeSharedMemory(parameters, "output '" + name + "': ", &ref);
      if (!status.ok()) return status;
      if (ref.used()) {
        if (as_binary) {
          return Bad("output '" + name +
                     "': asks for binary_data and for shared memory; an "
                     "output in shared memory has no elements in the answer");
        }
        request->output_shared_memory[name] = ref;
      }
    }
  }
  return Status{};
}

std::string EncodeInferResponse(const InferResponse& response,
                                const std::string& id,
                                const WireOptions& options,
                                int64_t* json_length) {
  std::string body;
  EncodeInferResponseWithin(response, id, options,
                            std::numeric_limits<size_t>::max(), &body,
                            json_length);
  return body;
}

bool EncodeInferResponseWithin(const InferResponse& response,
                               const std::string& id,
                               const WireOptions& options,
                               size_t max_bytes,
                               std::string* answer,
                               int64_t* json_length) {
  *json_length = -1;
  answer->clear();
  std::string body = "{";
  if (!id.empty()) {
    body += "\"id\":";
    AppendQuoted(&body, id);
    body += ',';
  }
  body += "\"model_name\":";
  AppendQuoted(&body, response.model);
  body += ",\"model_version\":";
  AppendQuoted(&body, response.version);
  body += ",\"outputs\":[";
  // The binary outputs, appended after the JSON: copied once, into the
  // body, rather than gathered first.
  std::vector<std::string_view> binary;
  size_t binary_bytes = 0;
  bool any_binary = options.binary_default;
  for (size_t i = 0; i < response.outputs.size(); ++i) {
    const TensorData& out = response.outputs[i];
    if (i > 0) body += ',';
    body += "{\"name\":";
    AppendQuoted(&body, out.name);
    body += ",\"datatype\":\"";
    body += DatatypeName(out);
    body += "\",\"shape\":";
    AppendList(&body, out.shape);
    auto it = options.binary_output.find(out.name);
    const bool in_shared_memory = out.shared_memory.used();
    const bool as_binary =
        !in_shared_memory &&
        (it != options.binary_output.end() ? it->second
                                           : options.binary_default);
    if (as_binary || in_shared_memory || !out.lod.empty()) {
      body += ",\"parameters\":{";
      const char* separator = "";
      if (!out.lod.empty()) {
        body += "\"lod\":[";
        for (size_t l = 0; l < out.lod.size(); ++l) {
          if (l > 0) body += ',';
          AppendList(&body, out.lod[l]);
        }
        body += ']';
        separator = ",";
      }
      if (as_binary) {
        body += separator;
        body += "\"binary_data_size\":";
        AppendInteger(&body, out.elements().size());
      }
      if (in_shared_memory) {
        body += separator;
        body += "\"shared_memory_region\":";
        AppendQuoted(&body, out.shared_memory.region);
        body += ",\"shared_memory_byte_size\":";
        AppendInteger(&body, out.shared_memory.byte_size);
        if (out.shared_memory.offset != 0) {
          body += ",\"shared_memory_offset\":";
          AppendInteger(&body, out.shared_memory.offset);
        }
      }
      body += '}';
    }
    // An output in shared memory has its elements there, not here.
    if (as_binary) {
      binary.push_back(out.elements());
      binary_bytes += out.elements().size();
    } else if (!in_shared_memory) {
      body += ",\"data\":";
      AppendData(&body, out, max_bytes - std::min(max_bytes, binary_bytes));
    }
    body += '}';
    // Written as far as needed to know: a JSON answer may take ten times
    // its tensors' bytes.
    if (body.size() > max_bytes || binary_bytes > max_bytes - body.size()) {
      return false;
    }
  }
  body += "]}";
  if (body.size() > max_bytes || binary_bytes > max_bytes - body.size()) {
    return false;
  }
  // Any binary output asked for, even of an output not returned, makes
  // the answer binary framed, as before.
  for (auto& [name, b] : options.binary_output) any_binary |= b;
  if (any_binary) {
    *json_length = static_cast<int64_t>(body.size());
    body.reserve(body.size() + binary_bytes);
    for (std::string_view b : binary) body += b;
  }
  *answer = std::move(body);
  return true;
}

}  // namespace serve
}  // namespace pdlite
