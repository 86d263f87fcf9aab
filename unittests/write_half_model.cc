// Writes the half-precision test model (unittests/test_utils/half_model.h)
// as DIR/model.pdmodel and DIR/model.pdiparams, for the tests that cannot
// build a program themselves: c_api_test (C) and serve_test.py.
//   write_half_model DIR
#include <sys/stat.h>

#include <iostream>

#include "unittests/test_utils/half_model.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_half_model DIR\n";
    return 2;
  }
  mkdir(argv[1], 0755);
  paddle_lite::testing::SaveHalfPrecisionModel(std::string(argv[1]) + "/model");
  return 0;
}
