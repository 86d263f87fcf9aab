// Paths of the models tests load (PDLITE_SOURCE_DIR is set per test
// binary by unittests/CMakeLists.txt).
#pragma once

#include <string>

namespace paddle_lite {
namespace testing {

/// The demo model this repository makes and ships (models/demo_convnet).
inline const std::string& DemoModelDir() {
  static const std::string dir =
      std::string(PDLITE_SOURCE_DIR) + "/models/demo_convnet";
  return dir;
}

}  // namespace testing
}  // namespace paddle_lite
