// Restricted APIs (Triton's --http-restricted-api and
// --grpc-restricted-protocol): calls of the categories named are served
// only when they carry a header (gRPC: metadata) with the value given, so
// that model control, shared memory or anything else can be kept to
// clients that hold a key, while inference stays open.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

namespace pdlite {
namespace serve {

/// Triton's categories of calls.
enum class ApiCategory {
  kHealth,
  kMetadata,
  kInference,
  kSharedMemory,
  kModelConfig,
  kModelRepository,
  kStatistics,
  kTrace,
  kLogging,
};

/// "health", "metadata", "inference", "shared-memory", "model-config",
/// "model-repository", "statistics", "trace", "logging".
const char* ApiCategoryName(ApiCategory category);

/// The category of an HTTP call, by its path (whatever the method, as the
/// router answers a wrong method with 404 anyway); none for a path that is
/// no call of the protocol (/metrics, an unknown one).
std::optional<ApiCategory> HttpApiCategory(const std::string& path);

/// One protocol's restrictions.
class ApiRestrictions {
 public:
  /// Adds one flag's value, "<category>[,<category>...]:<key>=<value>"; a
  /// category already restricted, an unknown one, or an empty key or
  /// value is refused with `why` (which never quotes the value). Header
  /// keys compare without case.
  bool Add(const std::string& spec, std::string* why);
  bool empty() const { return rules_.empty(); }
  /// Whether calls of `category` need a header.
  bool Restricts(ApiCategory category) const {
    return rules_.count(category) != 0;
  }

  /// Looks a header up by its lowercase key: false when absent.
  using HeaderLookup =
      std::function<bool(const std::string& key, std::string* value)>;
  /// Whether a call of `category` may be served: not restricted, or
  /// `header` gives the value expected. Else `why` names the header
  /// expected (never its value).
  bool Allows(ApiCategory category,
              const HeaderLookup& header,
              std::string* why) const;

 private:
  struct Rule {
    std::string key;  // lowercase
    std::string value;
  };
  std::map<ApiCategory, Rule> rules_;
};

}  // namespace serve
}  // namespace pdlite
