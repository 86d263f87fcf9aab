// Writes a test model that no shipped model stands in for, as
// DIR/model.pdmodel and DIR/model.pdiparams, for the tests that cannot
// build a program themselves (c_api_test in C, pdlite_test.sh,
// serve_test.py):
//   write_test_model half DIR   test_utils/half_model.h
//   write_test_model loop DIR   test_utils/loop_model.h
//   write_test_model slash_names DIR   test_utils/slash_names_model.h
#include <sys/stat.h>

#include <iostream>
#include <string>

#include "unittests/test_utils/half_model.h"
#include "unittests/test_utils/loop_model.h"
#include "unittests/test_utils/slash_names_model.h"

int main(int argc, char** argv) {
  const std::string kind = argc == 3 ? argv[1] : "";
  if (kind != "half" && kind != "loop" && kind != "slash_names") {
    std::cerr << "usage: write_test_model half|loop|slash_names DIR\n";
    return 2;
  }
  mkdir(argv[2], 0755);
  const std::string prefix = std::string(argv[2]) + "/model";
  if (kind == "half") {
    paddle_lite::testing::SaveHalfPrecisionModel(prefix);
  } else if (kind == "loop") {
    paddle_lite::testing::SaveCountingLoopModel(prefix);
  } else {
    paddle_lite::testing::SaveSlashNamesModel(prefix);
  }
  return 0;
}
