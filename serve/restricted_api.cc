#include "serve/restricted_api.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "serve/http_codec.h"

namespace pdlite {
namespace serve {

namespace {

constexpr ApiCategory kAll[] = {
    ApiCategory::kHealth,      ApiCategory::kMetadata,
    ApiCategory::kInference,   ApiCategory::kSharedMemory,
    ApiCategory::kModelConfig, ApiCategory::kModelRepository,
    ApiCategory::kStatistics,  ApiCategory::kTrace,
    ApiCategory::kLogging};

bool StartsWith(const std::string& text, const char* prefix) {
  return text.compare(0, std::strlen(prefix), prefix) == 0;
}

// Compares in time that depends on the lengths only, so that a client
// cannot find the value a byte at a time by timing refusals.
bool SameSecret(const std::string& a, const std::string& b) {
  unsigned char differ = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) {
    differ |= static_cast<unsigned char>(a[i]) ^
              static_cast<unsigned char>(i < b.size() ? b[i] : 0);
  }
  return differ == 0;
}

// A flag's value with what follows the key's '=' hidden, for messages.
std::string Masked(const std::string& spec) {
  const size_t colon = spec.find(':');
  const size_t equals =
      spec.find('=', colon == std::string::npos ? 0 : colon + 1);
  if (equals == std::string::npos) return spec;
  return spec.substr(0, equals + 1) + "<value>";
}

// A header name's characters (RFC 9110 token).
bool IsTokenChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

}  // namespace

const char* ApiCategoryName(ApiCategory category) {
  switch (category) {
    case ApiCategory::kHealth:
      return "health";
    case ApiCategory::kMetadata:
      return "metadata";
    case ApiCategory::kInference:
      return "inference";
    case ApiCategory::kSharedMemory:
      return "shared-memory";
    case ApiCategory::kModelConfig:
      return "model-config";
    case ApiCategory::kModelRepository:
      return "model-repository";
    case ApiCategory::kStatistics:
      return "statistics";
    case ApiCategory::kTrace:
      return "trace";
    case ApiCategory::kLogging:
      return "logging";
  }
  return "?";
}

std::optional<ApiCategory> HttpApiCategory(const std::string& path) {
  if (StartsWith(path, "/v2/health/")) return ApiCategory::kHealth;
  if (path == "/v2") return ApiCategory::kMetadata;
  if (StartsWith(path, "/v2/repository/")) {
    return ApiCategory::kModelRepository;
  }
  if (StartsWith(path, "/v2/systemsharedmemory") ||
      StartsWith(path, "/v2/cudasharedmemory")) {
    return ApiCategory::kSharedMemory;
  }
  if (path == "/v2/logging") return ApiCategory::kLogging;
  if (StartsWith(path, "/v2/trace")) return ApiCategory::kTrace;
  // The router answers /v2/models/stats before any model's path.
  if (path == "/v2/models/stats") return ApiCategory::kStatistics;
  if (StartsWith(path, "/v2/models/")) {
    // As the router reads the path; one it does not route is metadata.
    std::string model, version, action;
    if (!ParseModelPath(path, &model, &version, &action)) {
      return ApiCategory::kMetadata;
    }
    if (action == "ready") return ApiCategory::kHealth;
    if (action == "infer") return ApiCategory::kInference;
    if (action == "stats") return ApiCategory::kStatistics;
    if (action == "config") return ApiCategory::kModelConfig;
    return ApiCategory::kMetadata;
  }
  if (path == "/v2/models") return ApiCategory::kMetadata;
  return std::nullopt;
}

bool ApiRestrictions::Add(const std::string& spec, std::string* why) {
  const size_t colon = spec.find(':');
  const size_t equals = spec.find('=', colon == std::string::npos ? 0 : colon);
  if (colon == std::string::npos || equals == std::string::npos) {
    *why = "'" + Masked(spec) +
           "' is not <category>[,<category>...]:<key>=<value>";
    return false;
  }
  std::string key = spec.substr(colon + 1, equals - colon - 1);
  const std::string value = spec.substr(equals + 1);
  if (key.empty() || value.empty() ||
      !std::all_of(key.begin(), key.end(), IsTokenChar)) {
    *why = "'" + Masked(spec) +
           "': the header key must be a header name and the value not "
           "empty";
    return false;
  }
  std::transform(key.begin(), key.end(), key.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  std::map<ApiCategory, Rule> added;
  size_t at = 0;
  const std::string names = spec.substr(0, colon);
  for (;;) {
    const size_t comma = names.find(',', at);
    const std::string name = names.substr(at, comma - at);
    const ApiCategory* found = nullptr;
    for (const ApiCategory& c : kAll) {
      if (name == ApiCategoryName(c)) found = &c;
    }
    if (found == nullptr) {
      *why = "'" + name +
             "' is not a category (health, metadata, inference, "
             "shared-memory, model-config, model-repository, statistics, "
             "trace, logging)";
      return false;
    }
    if (rules_.count(*found) != 0 || added.count(*found) != 0) {
      *why = "'" + name + "' is restricted twice";
      return false;
    }
    added[*found] = Rule{key, value};
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  rules_.insert(added.begin(), added.end());
  return true;
}

bool ApiRestrictions::Allows(ApiCategory category,
                             const HeaderLookup& header,
                             std::string* why) const {
  auto rule = rules_.find(category);
  if (rule == rules_.end()) return true;
  std::string given;
  if (header(rule->second.key, &given) &&
      SameSecret(rule->second.value, given)) {
    return true;
  }
  *why = std::string("the ") + ApiCategoryName(category) +
         " API is restricted: the call needs the header '" + rule->second.key +
         "' with the value the server was given";
  return false;
}

}  // namespace serve
}  // namespace pdlite
