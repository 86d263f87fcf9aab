#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;
using framework::Tensor;

Tensor Shape(const Tensor& input) {
  OpTester t("shape");
  t.Input("Input", input).Output("Out", DataType::kInt32);
  t.Run();
  return t.GetOutput("Out");
}

TEST(ShapeOp, WritesDimsAsInt32) {
  ExpectTensorNear(Shape(RandomTensor<float>({2, 3, 13})),
                   MakeTensor<int32_t>({3}, {2, 3, 13}), 0, 0);
  ExpectTensorNear(Shape(RandomTensor<float>({1})),
                   MakeTensor<int32_t>({1}, {1}), 0, 0);
  ExpectTensorNear(Shape(RandomTensor<float>({1, 2, 1, 3, 1, 127})),
                   MakeTensor<int32_t>({6}, {1, 2, 1, 3, 1, 127}), 0, 0);
}

TEST(ShapeOp, ZeroDAndEmptyInputs) {
  ExpectTensorNear(Shape(MakeTensor<float>({}, {1})),
                   MakeTensor<int32_t>({0}, {}), 0, 0);
  ExpectTensorNear(Shape(MakeTensor<float>({4, 0}, {})),
                   MakeTensor<int32_t>({2}, {4, 0}), 0, 0);
}

TEST(ShapeOp, AnyInputType) {
  ExpectTensorNear(Shape(MakeTensor<int64_t>({2, 1}, {1, 2})),
                   MakeTensor<int32_t>({2}, {2, 1}), 0, 0);
  ExpectTensorNear(Shape(MakeTensor<bool>({3}, {true, false, true})),
                   MakeTensor<int32_t>({1}, {3}), 0, 0);
  ExpectTensorNear(Shape(MakeTensor<uint8_t>({1, 1, 1}, {7})),
                   MakeTensor<int32_t>({3}, {1, 1, 1}), 0, 0);
  ExpectTensorNear(Shape(RandomTensor<double>({5, 7})),
                   MakeTensor<int32_t>({2}, {5, 7}), 0, 0);
}

TEST(ShapeOp, AllKernelsAgree) {
  OpTester t("shape");
  t.Input("Input", RandomTensor<float>({13, 127}))
      .Output("Out", DataType::kInt32);
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
