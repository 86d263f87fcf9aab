#include "serve/classification.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <type_traits>

namespace pdlite {
namespace serve {

void AppendBytesElement(std::string* elements, std::string_view element) {
  const auto size = static_cast<uint32_t>(element.size());
  const char length[4] = {static_cast<char>(size & 0xff),
                          static_cast<char>((size >> 8) & 0xff),
                          static_cast<char>((size >> 16) & 0xff),
                          static_cast<char>((size >> 24) & 0xff)};
  elements->append(length, 4);
  elements->append(element);
}

bool SplitBytesElements(std::string_view elements,
                        std::vector<std::string_view>* out) {
  out->clear();
  size_t at = 0;
  while (at < elements.size()) {
    if (elements.size() - at < 4) return false;
    const auto* p =
        reinterpret_cast<const unsigned char*>(elements.data() + at);
    const uint64_t size = uint64_t{p[0]} | uint64_t{p[1]} << 8 |
                          uint64_t{p[2]} << 16 | uint64_t{p[3]} << 24;
    at += 4;
    if (elements.size() - at < size) return false;
    out->push_back(elements.substr(at, size));
    at += size;
  }
  return true;
}

namespace {

template <typename T>
std::string ValueText(T v) {
  if constexpr (std::is_same_v<T, paddle_lite::float16> ||
                std::is_same_v<T, paddle_lite::bfloat16>) {
    return std::to_string(static_cast<float>(v));
  } else if constexpr (sizeof(T) == 1) {
    return std::to_string(static_cast<int>(v));  // a number, not a char
  } else {
    return std::to_string(v);
  }
}

template <typename T>
double Comparable(T v) {
  if constexpr (std::is_same_v<T, paddle_lite::float16> ||
                std::is_same_v<T, paddle_lite::bfloat16>) {
    return static_cast<double>(static_cast<float>(v));
  } else {
    return static_cast<double>(v);
  }
}

// Whether score a ranks before score b: higher first, NaN last; the index
// breaks ties so that the order is the same on every run.
template <typename T>
bool RanksBefore(const T* scores, size_t a, size_t b) {
  if constexpr (std::is_integral_v<T>) {
    if (scores[a] != scores[b]) return scores[a] > scores[b];
  } else {
    // Wider than every floating type here except double, which is itself.
    const double x = Comparable(scores[a]), y = Comparable(scores[b]);
    const bool x_nan = std::isnan(x), y_nan = std::isnan(y);
    if (x_nan != y_nan) return y_nan;
    if (!x_nan && x != y) return x > y;
  }
  return a < b;
}

}  // namespace

Status Classify(const TensorData& scores,
                int64_t count,
                bool per_row,
                const std::vector<std::string>& labels,
                TensorData* out,
                ClassLimits* left) {
  const std::string what = "output '" + scores.name + "': ";
  ClassLimits whole;
  if (left == nullptr) left = &whole;
  // "the N" of a whole answer, "the N left of the M" when other outputs
  // took some.
  auto bound = [](uint64_t n, uint64_t of) {
    return "the " + std::to_string(n) +
           (n == of ? std::string() : " left of the " + std::to_string(of));
  };
  if (count < 1) {
    return Status::Error(
        StatusCode::kInvalidArgument,
        what + "\"classification\" must be >= 1, got " + std::to_string(count));
  }
  if (scores.is_bytes) {
    return Status::Error(StatusCode::kInvalidArgument,
                         what + "BYTES outputs cannot be classified");
  }
  const size_t element = ElementSize(scores.type);
  const std::string_view bytes = scores.elements();
  const size_t total = element == 0 ? 0 : bytes.size() / element;
  size_t rows = 1;
  if (per_row && !scores.shape.empty()) {
    rows = static_cast<size_t>(std::max<int64_t>(scores.shape[0], 0));
  }
  const size_t per = rows == 0 ? 0 : total / rows;
  if (rows * per != total) {
    return Status::Error(StatusCode::kInternal,
                         what + "shape " + ShapeString(scores.shape) +
                             " does not match its " + std::to_string(total) +
                             " elements");
  }
  const size_t k = std::min(static_cast<uint64_t>(count), uint64_t{per});
  if (k != 0 && rows > left->classes / k) {
    return Status::Error(StatusCode::kInvalidArgument,
                         what + std::to_string(k) + " classes for each of " +
                             std::to_string(rows) + " rows are more than " +
                             bound(left->classes, kMaxClassesPerAnswer) +
                             " an answer may hold");
  }
  out->name = scores.name;
  out->is_bytes = true;
  out->shape.clear();
  if (per_row) out->shape.push_back(static_cast<int64_t>(rows));
  out->shape.push_back(static_cast<int64_t>(k));
  out->lod.clear();
  out->borrowed = std::string_view();
  out->bytes.clear();
  bool too_long = false;
  bool known = VisitType(scores.type, [&](auto t) {
    // BOOL as its bytes, 0 or 1 (std::vector<bool> packs bits).
    using T = std::conditional_t<std::is_same_v<decltype(t), bool>, uint8_t,
                                 decltype(t)>;
    // Copied out: a tensor's bytes need not be aligned for T.
    std::vector<T> row(per);
    std::vector<size_t> order(per);
    for (size_t r = 0; r < rows && !too_long; ++r) {
      if (per > 0) {
        std::memcpy(row.data(), bytes.data() + r * per * sizeof(T),
                    per * sizeof(T));
      }
      std::iota(order.begin(), order.end(), size_t{0});
      std::partial_sort(
          order.begin(), order.begin() + k, order.end(),
          [&](size_t a, size_t b) { return RanksBefore(row.data(), a, b); });
      for (size_t i = 0; i < k; ++i) {
        const size_t index = order[i];
        std::string text = ValueText(row[index]) + ":" + std::to_string(index);
        if (index < labels.size() && !labels[index].empty()) {
          text += ":" + labels[index];
        }
        // Checked before it is added: the bytes never pass the bound.
        if (text.size() + 4 > left->bytes - out->bytes.size()) {
          too_long = true;
          break;
        }
        AppendBytesElement(&out->bytes, text);
      }
    }
  });
  if (!known) {
    return Status::Error(StatusCode::kInternal,
                         what + "its type cannot be classified");
  }
  if (too_long) {
    std::string().swap(out->bytes);
    return Status::Error(
        StatusCode::kInvalidArgument,
        what + std::to_string(k) + " classes for each of " +
            std::to_string(rows) + " rows, with their labels, take more than " +
            bound(left->bytes, kMaxClassBytesPerAnswer) +
            " bytes an answer's classes may; ask for fewer classes or rows");
  }
  left->classes -= rows * k;
  left->bytes -= out->bytes.size();
  return Status{};
}

bool ReadLabelsFile(const std::string& path,
                    size_t max_bytes,
                    std::vector<std::string>* labels,
                    std::string* error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // A FIFO would block the open (and the load) until a writer came.
  if (!fs::is_regular_file(path, ec)) {
    *error = path + ": " + (ec ? ec.message() : "not a regular file");
    return false;
  }
  const uintmax_t size = fs::file_size(path, ec);
  if (ec || size > max_bytes) {
    *error = path + ": " +
             (ec ? ec.message()
                 : "larger than " + std::to_string(max_bytes) + " bytes");
    return false;
  }
  std::ifstream file(path, std::ios::binary);
  std::string text(static_cast<size_t>(size), '\0');
  if (!file.read(text.data(), static_cast<std::streamsize>(text.size()))) {
    *error = path + ": cannot be read";
    return false;
  }
  if (!simdjson::validate_utf8(text.data(), text.size())) {
    *error = path + ": not UTF-8 text";
    return false;
  }
  labels->clear();
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    for (const unsigned char c : line) {
      if (c < 0x20 || c == 0x7f) {
        *error = path + ": line " + std::to_string(labels->size() + 1) +
                 " has a control character";
        return false;
      }
    }
    if (labels->size() == kMaxLabels) {
      *error = path + ": more than " + std::to_string(kMaxLabels) + " lines";
      return false;
    }
    labels->push_back(std::move(line));
    start = end + 1;
  }
  return true;
}

}  // namespace serve
}  // namespace pdlite
