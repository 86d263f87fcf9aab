#include "platform/place.h"

#include <cctype>
#include <functional>

#include "platform/enforce.h"

namespace paddle_lite {
namespace platform {

std::string Place::KindName() const {
  struct Visitor {
    std::string operator()(const CPUPlace&) const { return "cpu"; }
    std::string operator()(const CUDAPlace&) const { return "cuda"; }
    std::string operator()(const CUDAPinnedPlace&) const {
      return "cuda_pinned";
    }
    std::string operator()(const CustomPlace& p) const { return p.type; }
  };
  return std::visit(Visitor{}, value_);
}

int Place::device_id() const {
  if (auto* p = std::get_if<CUDAPlace>(&value_)) return p->device;
  if (auto* p = std::get_if<CustomPlace>(&value_)) return p->device;
  return 0;
}

std::string Place::ToString() const {
  if (is_cpu() || is_cuda_pinned()) return KindName();
  return KindName() + ":" + std::to_string(device_id());
}

bool Place::operator==(const Place& other) const {
  // SameKind, not KindName: no strings for the built-in kinds (the
  // executor compares places per buffer of every new plan).
  return SameKind(*this, other) && device_id() == other.device_id();
}

bool SameKind(const Place& a, const Place& b) {
  if (a.variant().index() != b.variant().index()) return false;
  if (!a.is_custom()) return true;  // one kind per built-in alternative
  return std::get<CustomPlace>(a.variant()).type ==
         std::get<CustomPlace>(b.variant()).type;
}

namespace {

bool IsValidTypeName(const std::string& s) {
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) {
    return false;
  }
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

}  // namespace

Place ParsePlace(const std::string& text) {
  std::string kind = text;
  int device = 0;
  auto colon = text.find(':');
  if (colon != std::string::npos) {
    kind = text.substr(0, colon);
    std::string id = text.substr(colon + 1);
    PADDLE_ENFORCE(!id.empty() && id.size() < 6 &&
                       id.find_first_not_of("0123456789") == std::string::npos,
                   errors::InvalidArgument(
                       "Cannot parse place '", text,
                       "': the device id after ':' must be a non-negative "
                       "integer, as in 'cuda:0' or 'npu:1'."));
    device = std::stoi(id);
  }
  for (auto& c : kind) c = static_cast<char>(std::tolower(c));
  PADDLE_ENFORCE(
      IsValidTypeName(kind),
      errors::InvalidArgument("Cannot parse place '", text,
                              "': expected 'cpu', 'cuda:N', 'cuda_pinned' or "
                              "'<device type>:N'."));
  if (kind == "cpu") {
    PADDLE_ENFORCE(device == 0, errors::InvalidArgument(
                                    "Cannot parse place '", text,
                                    "': the CPU place has no device id."));
    return CPUPlace{};
  }
  if (kind == "cuda" || kind == "gpu") return CUDAPlace{device};
  if (kind == "cuda_pinned") return CUDAPinnedPlace{};
  return CustomPlace{kind, device};
}

Place ParseRunPlace(const std::string& text, const std::string& source) {
  const Place place = ParsePlace(text);
  PADDLE_ENFORCE(!place.is_cuda_pinned(),
                 errors::InvalidArgument(
                     source, " '", text,
                     "': cuda_pinned is page-locked host memory, not a "
                     "device ops run on; use 'cpu' or 'cuda:N'."));
  return place;
}

std::ostream& operator<<(std::ostream& os, const Place& place) {
  return os << place.ToString();
}

size_t PlaceHash::operator()(const Place& place) const {
  return std::hash<std::string>()(place.KindName()) * 31 +
         static_cast<size_t>(place.device_id());
}

}  // namespace platform
}  // namespace paddle_lite
