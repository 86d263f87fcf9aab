// Tensor dimensions: a plain vector of int64 sizes (-1 only in declared,
// not yet inferred, shapes).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace paddle_lite {
namespace framework {

using DDim = std::vector<int64_t>;

/// Product of the dims (1 for rank 0). Throws InvalidArgument on a
/// negative dim.
int64_t Product(const DDim& dims);
/// Product of dims[begin, end).
int64_t Product(const DDim& dims, int begin, int end);
/// "[2, 3, 48, 192]".
std::string DimsToString(const DDim& dims);

}  // namespace framework
}  // namespace paddle_lite

namespace std {
/// Lets error messages stream dims directly.
std::ostream& operator<<(std::ostream& os, const vector<int64_t>& dims);
std::ostream& operator<<(std::ostream& os, const vector<int32_t>& values);
}  // namespace std
