// The logging extension's settings (serve/log_settings.h): what changes
// while the server runs, all or none.
#include "serve/log_settings.h"

#include <glog/logging.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace pdlite {
namespace serve {
namespace {

LogSetting Uint(const std::string& key, uint64_t value) {
  LogSetting s;
  s.key = key;
  s.kind = LogSetting::Kind::kUint;
  s.number = value;
  return s;
}

LogSetting Flag(const std::string& key, bool value) {
  LogSetting s;
  s.key = key;
  s.kind = LogSetting::Kind::kBool;
  s.flag = value;
  return s;
}

uint64_t VerboseLevel(const LogSettings& settings) {
  for (const LogSetting& s : settings.Current()) {
    if (s.key == "log_verbose_level") return s.number;
  }
  ADD_FAILURE() << "no log_verbose_level";
  return 0;
}

TEST(LogSettings, TheVerboseLevelChangesAndTheRestStays) {
  LogSettings settings(0);
  EXPECT_FALSE(settings.LogRequests());
  ASSERT_EQ(settings.Current().size(), 6u);
  EXPECT_TRUE(settings.Update({Uint("log_verbose_level", 3)}).ok());
  EXPECT_TRUE(settings.LogRequests());
  EXPECT_EQ(VerboseLevel(settings), 3u);
  // The current value of another setting is accepted; another value not.
  EXPECT_TRUE(settings.Update({Flag("log_info", true)}).ok());
  Status off = settings.Update({Flag("log_warning", false)});
  EXPECT_EQ(off.code, StatusCode::kInvalidArgument);
  EXPECT_NE(off.message.find("\"log_warning\" cannot be changed"),
            std::string::npos)
      << off.message;
}

TEST(LogSettings, AnUpdateWithOneBadSettingChangesNothing) {
  LogSettings settings(1);
  for (const std::vector<LogSetting>& update :
       {std::vector<LogSetting>{Uint("log_verbose_level", 0),
                                Uint("log_level", 1)},
        std::vector<LogSetting>{Uint("log_verbose_level", 0),
                                Flag("log_error", false)},
        std::vector<LogSetting>{Flag("log_verbose_level", false)},
        std::vector<LogSetting>{
            Uint("log_verbose_level", uint64_t{1} << 32)}}) {
    EXPECT_EQ(settings.Update(update).code, StatusCode::kInvalidArgument);
    EXPECT_EQ(VerboseLevel(settings), 1u);
    EXPECT_TRUE(settings.LogRequests());
  }
}

// An update that does not name log_verbose_level leaves it alone, even
// while another call changes it (it wrote back the level it had read).
TEST(LogSettings, AnotherSettingsUpdateDoesNotUndoALevelChange) {
  const int min_log_level = FLAGS_minloglevel;
  FLAGS_minloglevel = google::GLOG_WARNING;  // each change logs a line
  LogSettings settings(0);
  std::atomic<bool> done{false};
  std::atomic<uint64_t> others{0};
  std::thread other([&] {
    while (!done.load()) {
      EXPECT_TRUE(settings.Update({Flag("log_info", true)}).ok());
      others.fetch_add(1);
    }
  });
  while (others.load() == 0) std::this_thread::yield();
  int undone = 0;
  constexpr uint64_t kChanges = 20000;
  for (uint64_t level = 1; level <= kChanges; ++level) {
    EXPECT_TRUE(settings.Update({Uint("log_verbose_level", level)}).ok());
    if (VerboseLevel(settings) < level) ++undone;
  }
  const uint64_t overlapping = others.load();
  done = true;
  other.join();
  // The other updates ran among the changes (not all before or after).
  EXPECT_GT(overlapping, 1u);
  FLAGS_minloglevel = min_log_level;
  EXPECT_EQ(undone, 0);
  EXPECT_EQ(VerboseLevel(settings), kChanges);
}

}  // namespace
}  // namespace serve
}  // namespace pdlite
