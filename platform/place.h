// Places name where a tensor lives and where a kernel runs. A Place is a
// std::variant of the place structs; CustomPlace carries the device type
// by name, so plugins add devices at run time without a new variant member.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <variant>

namespace paddle_lite {
namespace platform {

struct CPUPlace {};
struct CUDAPlace {
  int device = 0;
};
/// Page-locked host memory, reachable from CUDA devices.
struct CUDAPinnedPlace {};
/// A device added by a plugin: `type` is its registered name ("npu").
struct CustomPlace {
  std::string type;
  int device = 0;
};

/// Value type; cheap to copy. Equality compares kind and device id;
/// KindName() is what kernel keys compare (a kernel serves every device of
/// its kind).
class Place {
 public:
  using Variant = std::variant<CPUPlace, CUDAPlace, CUDAPinnedPlace, CustomPlace>;

  Place() : value_(CPUPlace{}) {}
  Place(CPUPlace p) : value_(p) {}                  // NOLINT: implicit by design
  Place(CUDAPlace p) : value_(p) {}                 // NOLINT
  Place(CUDAPinnedPlace p) : value_(p) {}           // NOLINT
  Place(CustomPlace p) : value_(std::move(p)) {}    // NOLINT

  const Variant& variant() const { return value_; }
  bool is_cpu() const { return std::holds_alternative<CPUPlace>(value_); }
  bool is_cuda() const { return std::holds_alternative<CUDAPlace>(value_); }
  bool is_cuda_pinned() const {
    return std::holds_alternative<CUDAPinnedPlace>(value_);
  }
  bool is_custom() const { return std::holds_alternative<CustomPlace>(value_); }
  /// Memory the CPU can read directly (CPU and pinned host memory).
  bool is_host() const { return is_cpu() || is_cuda_pinned(); }

  /// "cpu", "cuda", "cuda_pinned" or the custom type name.
  std::string KindName() const;
  /// Device id; 0 for CPU and pinned places.
  int device_id() const;
  /// "cpu", "cuda:0", "cuda_pinned", "npu:1".
  std::string ToString() const;

  bool operator==(const Place& other) const;
  bool operator!=(const Place& other) const { return !(*this == other); }

 private:
  Variant value_;
};

/// Parses what Place::ToString() prints ("cpu", "gpu:1" and "cuda:1" are the
/// same; "npu:0" is a CustomPlace). Throws InvalidArgument on a malformed
/// string.
Place ParsePlace(const std::string& text);

/// ParsePlace for a place ops run on, which `cuda_pinned` (memory only) is
/// not: refused with InvalidArgument, the message starting with `source`
/// (where the text came from, as "PDLITE_DEVICE").
Place ParseRunPlace(const std::string& text, const std::string& source);

/// True when both places are of the same kind (device ids may differ).
bool SameKind(const Place& a, const Place& b);

std::ostream& operator<<(std::ostream& os, const Place& place);

struct PlaceHash {
  size_t operator()(const Place& place) const;
};

}  // namespace platform
}  // namespace paddle_lite
