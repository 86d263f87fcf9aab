// fc through the MKLDNN kernel (bias and relu inside the matmul primitive)
// against PLAIN: in_num_col_dims, [N] and [1, N] bias, no bias, relu.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

void Check(const framework::DDim& input,
           const framework::DDim& w,
           const framework::DDim& bias,
           int in_num_col_dims,
           const std::string& activation) {
  SCOPED_TRACE("Input " + framework::DimsToString(input) + " W " +
               framework::DimsToString(w) + " '" + activation + "'");
  RunProductKernels(
      "fc",
      [&](OpTester* t) {
        t->Input("Input", RandomTensor<float>(input, -1, 1, 221))
            .Input("W", RandomTensor<float>(w, -1, 1, 222));
        if (!bias.empty()) {
          t->Input("Bias", RandomTensor<float>(bias, -1, 1, 223));
        }
        t->Output("Out");
      },
      {{"in_num_col_dims", in_num_col_dims}, {"activation_type", activation}});
}

TEST(FcMkldnn, HasKernel) { ExpectMkldnnKernel("fc"); }

TEST(FcMkldnn, Shapes) {
  for (const char* act : {"", "relu"}) {
    Check({32, 784}, {784, 200}, {200}, 1, act);
    Check({1, 1280}, {1280, 3}, {1, 3}, 1, act);
    Check({2, 25, 96}, {96, 48}, {48}, 2, act);
    Check({4, 3, 8, 8}, {192, 10}, {}, 1, act);
    Check({0, 16}, {16, 8}, {8}, 1, act);
    // Products of at least kSmallMatmulMacs run on oneDNN (those above
    // under it, on a plain loop inside the kernel, RunSmallMatmul): a vector,
    // and a flattening.
    Check({1, 1280}, {1280, 16}, {1, 16}, 1, act);
    Check({4, 3, 16, 16}, {768, 10}, {}, 1, act);
  }
}

// A small product (the OCR classifier's head: [batch, 200] x [200, 2],
// relu) gives each row the same bits at every batch size: a server joins
// requests into batches and owes each the result of its unbatched run.
TEST(FcMkldnn, SmallProductsGiveEachRowTheSameBitsAtAnyBatch) {
  const framework::Tensor w = RandomTensor<float>({200, 2}, -1, 1, 224);
  const framework::Tensor bias = RandomTensor<float>({2}, -1, 1, 225);
  const framework::Tensor rows = RandomTensor<float>({16, 200}, -1, 1, 226);
  auto run = [&](int64_t batch) {
    framework::Tensor input;
    framework::TensorCopy(rows, platform::CPUPlace{}, &input);
    input.Resize({batch, 200});
    OpTester t("fc");
    t.Input("Input", input).Input("W", w).Input("Bias", bias).Output("Out");
    t.Attr("in_num_col_dims", 1).Attr("activation_type", std::string("relu"));
    t.Run(framework::LibraryType::MKLDNN());
    framework::Tensor out;
    framework::TensorCopy(t.GetOutput("Out"), platform::CPUPlace{}, &out);
    return out;
  };
  const framework::Tensor all = run(16);
  for (int64_t batch : {1, 2, 7, 16}) {
    const framework::Tensor some = run(batch);
    ASSERT_EQ(some.numel(), batch * 2);
    for (int64_t i = 0; i < batch * 2; ++i) {
      EXPECT_EQ(some.data<float>()[i], all.data<float>()[i])
          << "batch " << batch << " element " << i;
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
