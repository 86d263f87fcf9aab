// The logging extension (Triton's): clients read the server's log settings
// and change what may change while it runs, the per-request lines
// (log_verbose_level). The other settings are reported as they are: glog
// writes every level to stderr, and its levels are not changed at run
// time (glog reads them without synchronization).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "serve/types.h"

namespace pdlite {
namespace serve {

/// One setting, as a front end decoded or will encode it.
struct LogSetting {
  enum class Kind { kBool, kUint, kString, kOther };
  std::string key;
  Kind kind = Kind::kOther;
  bool flag = false;    // kBool
  uint64_t number = 0;  // kUint
  std::string text;     // kString
};

class LogSettings {
 public:
  explicit LogSettings(uint32_t verbose_level)
      : verbose_level_(verbose_level) {}

  /// Whether each request gets a log line (log_verbose_level above 0).
  bool LogRequests() const {
    return verbose_level_.load(std::memory_order_relaxed) > 0;
  }
  /// Every setting with its value now: log_file, log_info, log_warning,
  /// log_error, log_verbose_level, log_format.
  std::vector<LogSetting> Current() const;
  /// Applies `changes` all or none: log_verbose_level (0 to 2^31) changes;
  /// the others may only be given their current value. An unknown key, a
  /// wrong type or another value is InvalidArgument naming it.
  Status Update(const std::vector<LogSetting>& changes);

 private:
  std::atomic<uint32_t> verbose_level_;
};

}  // namespace serve
}  // namespace pdlite
