#include "unittests/test_utils/scratch_dir.h"

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <vector>

namespace paddle_lite {
namespace testing {

ScratchDir::ScratchDir(const std::string& tag) {
  std::string pattern = (std::filesystem::temp_directory_path() /
                         ("pdlite_test_" + tag + "_XXXXXX"))
                            .string();
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr) {
    throw std::runtime_error("cannot make a scratch folder like " + pattern);
  }
  path_ = buffer.data();
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;  // a destructor must not throw
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace testing
}  // namespace paddle_lite
