#include "serve/log_settings.h"

#include <glog/logging.h>

#include <optional>

namespace pdlite {
namespace serve {

namespace {

LogSetting Bool(const char* key, bool value) {
  LogSetting s;
  s.key = key;
  s.kind = LogSetting::Kind::kBool;
  s.flag = value;
  return s;
}

LogSetting Text(const char* key, const char* value) {
  LogSetting s;
  s.key = key;
  s.kind = LogSetting::Kind::kString;
  s.text = value;
  return s;
}

bool SameValue(const LogSetting& a, const LogSetting& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case LogSetting::Kind::kBool:
      return a.flag == b.flag;
    case LogSetting::Kind::kUint:
      return a.number == b.number;
    case LogSetting::Kind::kString:
      return a.text == b.text;
    default:
      return false;
  }
}

}  // namespace

std::vector<LogSetting> LogSettings::Current() const {
  LogSetting verbose;
  verbose.key = "log_verbose_level";
  verbose.kind = LogSetting::Kind::kUint;
  verbose.number = verbose_level_.load(std::memory_order_relaxed);
  return {Text("log_file", ""),
          Bool("log_info", true),
          Bool("log_warning", true),
          Bool("log_error", true),
          verbose,
          Text("log_format", "default")};
}

Status LogSettings::Update(const std::vector<LogSetting>& changes) {
  const std::vector<LogSetting> now = Current();
  // Set only when asked: writing back the level read above would undo a
  // change another call made meanwhile.
  std::optional<uint32_t> verbose_level;
  for (const LogSetting& change : changes) {
    const LogSetting* current = nullptr;
    for (const LogSetting& s : now) {
      if (s.key == change.key) current = &s;
    }
    if (current == nullptr) {
      return Status::Error(
          StatusCode::kInvalidArgument,
          "unknown log setting \"" + change.key +
              "\" (known: log_file, log_info, log_warning, log_error, "
              "log_verbose_level, log_format)");
    }
    if (change.key == "log_verbose_level") {
      if (change.kind != LogSetting::Kind::kUint ||
          change.number > (uint64_t{1} << 31)) {
        return Status::Error(StatusCode::kInvalidArgument,
                             "\"log_verbose_level\" must be an integer in "
                             "[0, 2^31]; above 0, each request is logged");
      }
      verbose_level = static_cast<uint32_t>(change.number);
      continue;
    }
    if (!SameValue(change, *current)) {
      return Status::Error(
          StatusCode::kInvalidArgument,
          "\"" + change.key +
              "\" cannot be changed while the server runs: it logs every "
              "level to stderr with glog (only log_verbose_level changes)");
    }
  }
  if (!verbose_level) return Status();
  const uint32_t before = verbose_level_.exchange(*verbose_level);
  if (before != *verbose_level) {
    LOG(INFO) << "log_verbose_level " << before << " -> " << *verbose_level
              << (*verbose_level > 0 ? ": each request is logged" : "");
  }
  return Status();
}

}  // namespace serve
}  // namespace pdlite
