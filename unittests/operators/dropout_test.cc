#include <string>

#include "gtest/gtest.h"
#include "unittests/operators/unary_test_util.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::Tensor;

Tensor RunDropout(const Tensor& x, const AttrList& attrs) {
  OpTester t("dropout");
  t.Input("X", x)
      .Output("Out", x.dtype())
      .Output("Mask", framework::DataType::kUInt8);
  for (const auto& a : attrs) t.Attr(a.first, a.second);
  t.Run();
  return t.GetOutput("Out");
}

TEST(DropoutOp, DefaultIsDowngradeInInferWithHalf) {
  ExpectTensorNear(RunDropout(MakeTensor<float>({3}, {2, -4, 1}), {}),
                   MakeTensor<float>({3}, {1, -2, 0.5f}), 0, 0);
}

TEST(DropoutOp, DowngradeInInferScalesByKeepProbability) {
  const AttrList attrs = {
      {"dropout_prob", 0.25f},
      {"is_test", true},
      {"dropout_implementation", std::string("downgrade_in_infer")}};
  ExpectTensorNear(RunDropout(MakeTensor<float>({2, 2}, {4, -8, 1, 0}), attrs),
                   MakeTensor<float>({2, 2}, {3, -6, 0.75f, 0}), 0, 0);
  CheckUnarySizes<float>("dropout", attrs,
                         [](double x) { return x * (1.0f - 0.25f); });
  CheckUnarySizes<double>("dropout", attrs,
                          [](double x) { return x * (1.0f - 0.25f); });
  // Extremes: nothing kept, everything kept.
  ExpectTensorNear(
      RunDropout(MakeTensor<float>({2}, {4, -8}), {{"dropout_prob", 1.0f}}),
      MakeTensor<float>({2}, {0, -0.0f}), 0, 0);
  ExpectTensorNear(
      RunDropout(MakeTensor<float>({2}, {4, -8}), {{"dropout_prob", 0.0f}}),
      MakeTensor<float>({2}, {4, -8}), 0, 0);
}

TEST(DropoutOp, UpscaleInTrainIsIdentity) {
  const AttrList attrs = {
      {"dropout_prob", 0.3f},
      {"is_test", true},
      {"dropout_implementation", std::string("upscale_in_train")}};
  const Tensor x = MakeTensor<float>({2, 2}, {4, -8, 1, 0}, {{0, 1, 2}});
  ExpectTensorNear(RunDropout(x, attrs), x, 0, 0);
  CheckUnarySizes<double>("dropout", attrs, [](double x) { return x; });
}

TEST(DropoutOp, BadAttributes) {
  ExpectError(
      [] {
        RunDropout(MakeTensor<float>({1}, {1}), {{"dropout_prob", 1.5f}});
      },
      ErrorCode::kInvalidArgument, {"dropout", "dropout_prob", "1.5"});
  ExpectError(
      [] {
        RunDropout(MakeTensor<float>({1}, {1}),
                   {{"dropout_implementation", std::string("scale_in_infer")}});
      },
      ErrorCode::kInvalidArgument,
      {"dropout", "dropout_implementation", "scale_in_infer"});
}

TEST(DropoutOp, AllKernelsAgree) {
  OpTester t("dropout");
  t.Input("X", RandomTensor<float>({2, 3, 13}))
      .Attr("dropout_prob", 0.1f)
      .Output("Out");
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
