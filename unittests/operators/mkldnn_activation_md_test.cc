// The activation descriptors the oneDNN kernels make by dims
// (kernels/cpu/mkldnn/mkldnn_helper.h): kept per thread for the dims asked
// last, each must equal a descriptor made anew, however many dims pass
// through. (Here because unittests/ has no binary for kernels/ yet.)
#include <vector>

#include "gtest/gtest.h"
#include "kernels/cpu/mkldnn/mkldnn_helper.h"

namespace paddle_lite {
namespace kernels {
namespace mkldnn {
namespace {

dnnl::memory::desc Fresh(const Dims& dims, bool channel_last) {
  const int rank = static_cast<int>(dims.size());
  Dims order(rank);  // dims from the outermost in memory
  for (int i = 0; i < rank; ++i) order[i] = i;
  if (channel_last && rank >= 3) {
    order.erase(order.begin() + 1);
    order.push_back(1);
  }
  Dims strides(rank);
  int64_t step = 1;
  for (int i = rank - 1; i >= 0; --i) {
    strides[order[i]] = step;
    step *= dims[order[i]];
  }
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

TEST(MkldnnActivationMd, EqualsADescriptorMadeAnew) {
  std::vector<Dims> all = {{2, 3},        {1, 8, 1, 1}, {1, 3, 48, 64},
                           {4, 16, 5, 7}, {1, 1, 9, 9}, {2, 5, 3, 4, 6},
                           {1, 8, 0, 4},  {3, 1, 1}};
  // More dims than are kept, twice over: each is made again after it went.
  for (int64_t w = 1; w <= 40; ++w) all.push_back({1, 24, 6, w});
  for (int pass = 0; pass < 2; ++pass) {
    for (const Dims& dims : all) {
      for (bool last : {false, true}) {
        EXPECT_TRUE(ActivationMd(dims, last) == Fresh(dims, last))
            << "dims " << ::testing::PrintToString(dims) << " channel_last "
            << last;
        EXPECT_TRUE(ActivationMd(dims, last) == Fresh(dims, last));
      }
      EXPECT_TRUE(PlainMd(dims) == Fresh(dims, false));
    }
  }
  // The same dims in both orders are different descriptors (where the
  // channels are not alone in their pixel).
  EXPECT_FALSE(ActivationMd({1, 3, 48, 64}, true) ==
               ActivationMd({1, 3, 48, 64}, false));
}

}  // namespace
}  // namespace mkldnn
}  // namespace kernels
}  // namespace paddle_lite
