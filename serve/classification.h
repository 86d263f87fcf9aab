// The classification extension (Triton's): an output a request asks for
// with the "classification" parameter comes back as its highest-valued
// classes, a BYTES tensor of "<value>:<index>[:<label>]" strings, instead
// of the model's scores.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "serve/types.h"

namespace pdlite {
namespace serve {

/// Classes one answer may hold, all its rows together: a request may ask
/// for every class of a large output, and each class is a string.
constexpr uint64_t kMaxClassesPerAnswer = uint64_t{1} << 20;
/// Bytes the classes of one answer may take, all rows together: labels
/// may be long, and each row repeats them.
constexpr size_t kMaxClassBytesPerAnswer = size_t{64} << 20;
/// Lines a labels file may have (each becomes a string in memory).
constexpr size_t kMaxLabels = size_t{1} << 20;

/// Appends one element to a BYTES tensor's elements in the protocol's
/// serialization: its length as 4 little-endian bytes, then its bytes.
void AppendBytesElement(std::string* elements, std::string_view element);

/// The elements of a serialized BYTES tensor; false when `elements` is not
/// whole length-prefixed strings.
bool SplitBytesElements(std::string_view elements,
                        std::vector<std::string_view>* out);

/// What the classes of one answer may still take: every output an answer
/// classifies draws on the same.
struct ClassLimits {
  uint64_t classes = kMaxClassesPerAnswer;
  size_t bytes = kMaxClassBytesPerAnswer;
};

/// `scores` (a model's output) as its `count` highest-valued classes, in
/// descending order of value (as the output's type compares them; equal
/// values by index, NaN last). `per_row`: each row along dim 0 is one
/// batch entry's scores, giving shape [rows, k]; otherwise the whole
/// tensor is, giving [k]. k is `count`, or the number of scores a row has
/// when fewer; more classes than `left` allows, or classes taking more
/// bytes, is refused (InvalidArgument), and what they take is taken from
/// it (without `left`: one answer's whole ClassLimits). The value is
/// written as std::to_string writes it ("%f" for floating-point types);
/// `labels[index]`, when there is one and it is not empty, is appended
/// after a third ':', as Triton does.
Status Classify(const TensorData& scores,
                int64_t count,
                bool per_row,
                const std::vector<std::string>& labels,
                TensorData* out,
                ClassLimits* left = nullptr);

/// Reads a labels file: one label a line, line i the label of class i
/// ('\n' or "\r\n" ends a line; a last line without one counts). False
/// with `error` set when it cannot be read, is over `max_bytes` or
/// kMaxLabels lines, or is not UTF-8 text without control characters
/// (labels go into JSON answers).
bool ReadLabelsFile(const std::string& path,
                    size_t max_bytes,
                    std::vector<std::string>* labels,
                    std::string* error);

}  // namespace serve
}  // namespace pdlite
