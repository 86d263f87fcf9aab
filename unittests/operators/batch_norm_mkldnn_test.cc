// batch_norm through the MKLDNN kernel against PLAIN: NCHW and NHWC, ranks
// 2 to 5, odd channel counts; training-mode statistics run PLAIN; and a
// batch_norm reading a convolution's blocked output keeps that layout.
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/program_builder.h"
#include "gtest/gtest.h"
#include "unittests/operators/mkldnn_test_util.h"

namespace paddle_lite {
namespace testing {
namespace {

void CheckBatchNorm(const framework::DDim& dims,
                    const std::string& layout,
                    bool is_test = true) {
  SCOPED_TRACE(framework::DimsToString(dims) + " " + layout +
               (is_test ? "" : " training"));
  const int64_t c = layout == "NHWC" ? dims.back() : dims[1];
  OpTester t("batch_norm");
  t.Input("X", RandomTensor<float>(dims, -3, 3, 1))
      .Input("Scale", RandomTensor<float>({c}, 0.5, 2, 2))
      .Input("Bias", RandomTensor<float>({c}, -1, 1, 3))
      .Input("Mean", RandomTensor<float>({c}, -1, 1, 4))
      .Input("Variance", RandomTensor<float>({c}, 0.1, 2, 5))
      .Output("Y");
  RunAllKernelsWith(
      &t, {{"is_test", is_test}, {"data_layout", layout}, {"epsilon", 1e-3f}});
}

TEST(BatchNormMkldnn, HasKernel) { ExpectMkldnnKernel("batch_norm"); }

TEST(BatchNormMkldnn, MatchesPlain) {
  CheckBatchNorm({2, 24, 7, 9}, "NCHW");
  CheckBatchNorm({2, 7, 9, 24}, "NHWC");
  CheckBatchNorm({1, 3, 5, 5}, "NCHW");
  CheckBatchNorm({4, 17}, "NCHW");
  CheckBatchNorm({2, 5, 11}, "NCHW");
  CheckBatchNorm({1, 8, 3, 4, 5}, "NCHW");
  CheckBatchNorm({2, 24, 7, 9}, "NCHW", /*is_test=*/false);
}

// conv2d (MKLDNN, writing a blocked layout) -> batch_norm -> relu, run by
// an executor as saved (no passes): the batch_norm reads the blocked
// tensor as is and the result matches the PLAIN kernels'.
TEST(BatchNormMkldnn, AfterABlockedConvolution) {
  framework::ProgramBuilder b;
  auto x = b.AddInput("x", framework::DataType::kFloat32, {-1, 16, 10, 10});
  b.AddParameter("w", RandomTensor<float>({32, 16, 3, 3}, -0.3, 0.3, 1));
  b.AddParameter("scale", RandomTensor<float>({32}, 0.5, 2, 2));
  b.AddParameter("bias", RandomTensor<float>({32}, -1, 1, 3));
  b.AddParameter("mean", RandomTensor<float>({32}, -1, 1, 4));
  b.AddParameter("var", RandomTensor<float>({32}, 0.1, 2, 5));
  for (const char* v : {"c", "bn", "out"}) b.AddVar(v);
  b.AddOp("conv2d", {{"Input", {x}}, {"Filter", {"w"}}}, {{"Output", {"c"}}},
          {{"paddings", std::vector<int>{1, 1}},
           {"strides", std::vector<int>{2, 2}}});
  b.AddOp("batch_norm",
          {{"X", {"c"}},
           {"Scale", {"scale"}},
           {"Bias", {"bias"}},
           {"Mean", {"mean"}},
           {"Variance", {"var"}}},
          {{"Y", {"bn"}}}, {{"is_test", true}});
  b.AddOp("relu", {{"X", {"bn"}}}, {{"Out", {"out"}}});
  b.AddOutput("out");
  const framework::ProgramDesc program = b.Build();
  auto run = [&](std::vector<framework::LibraryType> libraries,
                 bool* bn_blocked) {
    platform::DeviceContextPool pool(
        platform::DeviceContextOptions::WithThreads(1));
    framework::Executor executor(
        program, framework::KernelPreference{platform::CPUPlace{}, libraries},
        &pool);
    framework::Scope& scope = b.parameters().NewScope();
    *scope.Var("feed")->GetMutable<framework::TensorList>() = {
        RandomTensor<float>({2, 16, 10, 10}, -1, 1, 6)};
    scope.Var("fetch")->GetMutable<framework::TensorList>();
    executor.Run(0, &scope);
    *bn_blocked =
        scope.FindVar("bn")->Get<framework::Tensor>().opaque_layout() !=
        nullptr;
    auto fetched = scope.FindVar("fetch")->Get<framework::TensorList>();
    b.parameters().DeleteScope(&scope);
    return fetched;
  };
  bool blocked = false;
  const auto expected = run({}, &blocked);
  const auto got = run({framework::LibraryType::MKLDNN()}, &blocked);
  EXPECT_TRUE(blocked) << "batch_norm's output lost the conv's layout";
  ASSERT_EQ(got.size(), 1u);
  ExpectTensorNear(got[0], expected[0], kMkldnnTolerance, kMkldnnTolerance);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
