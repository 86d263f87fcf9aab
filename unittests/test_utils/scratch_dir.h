// A scratch folder for one test, removed with everything in it when the
// test is done, so no run leaves folders in the system's temp folder.
//
//   ScratchDir dir("combined");       // <temp>/pdlite_test_combined_XXXXXX
//   WriteStringToFile(dir.path() + "/__model__", bytes);
#pragma once

#include <string>

namespace paddle_lite {
namespace testing {

class ScratchDir {
 public:
  /// Makes a new, empty folder under TMPDIR (or /tmp) whose name holds
  /// `tag`; throws std::runtime_error when it cannot.
  explicit ScratchDir(const std::string& tag);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace testing
}  // namespace paddle_lite
