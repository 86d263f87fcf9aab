// DDim products: what every element count and byte size is computed from.
#include "framework/ddim.h"

#include <cstdint>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace framework {
namespace {

using testing::ExpectError;

TEST(DDim, ProductsOfAnyShapeThatPassesFitIn64Bits) {
  EXPECT_EQ(Product(DDim{2, 3, 4}), 24);
  EXPECT_EQ(Product(DDim{}), 1);
  EXPECT_EQ(Product(DDim{2, 3, 4}, 1, 3), 12);
  EXPECT_EQ(Product(DDim{1, 6, int64_t{1} << 40, 0}), 0);
  // Empty, but a kernel walking its rows would multiply 2^62 by 2^62.
  ExpectError(
      [] { Product(DDim{1, 6, int64_t{1} << 62, int64_t{1} << 62, 0}); },
      ErrorCode::kInvalidArgument,
      {"overflows 64 bits", "counting its non-zero dims"});
  ExpectError([] { Product(DDim{0, INT64_MAX, 2}); },
              ErrorCode::kInvalidArgument, {"overflows 64 bits"});
  ExpectError([] { Product(DDim{INT64_MAX, 2}); },
              ErrorCode::kInvalidArgument, {"overflows 64 bits"});
  ExpectError([] { Product(DDim{2, -1}); }, ErrorCode::kInvalidArgument,
              {"negative"});
}

}  // namespace
}  // namespace framework
}  // namespace paddle_lite
