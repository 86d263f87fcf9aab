#include <vector>

#include "framework/executor.h"
#include "framework/scope.h"
#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;
using framework::Tensor;

Tensor Assign(const Tensor& x) {
  OpTester t("assign");
  t.Input("X", x).Output("Out", x.dtype());
  t.Run();
  return t.GetOutput("Out");
}

TEST(AssignOp, CopiesDataShapeAndLoD) {
  Tensor x = MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}, {{0, 1, 3}});
  Tensor out = Assign(x);
  ExpectTensorNear(out, x, 0, 0);
}

TEST(AssignOp, InPlaceKeepsTheValue) {
  OpTester t("assign");
  t.Input("X", MakeTensor<float>({2}, {1, 2}, {{0, 2}}))
      .Output("Out")
      .AliasOutputToInput("Out", "X");
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({2}, {1, 2}, {{0, 2}}),
                   0, 0);
}

TEST(AssignOp, Types) {
  ExpectTensorNear(Assign(MakeTensor<int64_t>({2}, {int64_t(1) << 62, -1})),
                   MakeTensor<int64_t>({2}, {int64_t(1) << 62, -1}), 0, 0);
  ExpectTensorNear(Assign(MakeTensor<int32_t>({1}, {-7})),
                   MakeTensor<int32_t>({1}, {-7}), 0, 0);
  ExpectTensorNear(Assign(MakeTensor<bool>({3}, {true, false, true})),
                   MakeTensor<bool>({3}, {true, false, true}), 0, 0);
  ExpectTensorNear(Assign(MakeTensor<double>({1}, {0.1})),
                   MakeTensor<double>({1}, {0.1}), 0, 0);
  ExpectTensorNear(Assign(MakeTensor<uint8_t>({2}, {0, 255})),
                   MakeTensor<uint8_t>({2}, {0, 255}), 0, 0);
}

TEST(AssignOp, EdgeShapes) {
  ExpectTensorNear(Assign(MakeTensor<float>({}, {4})),
                   MakeTensor<float>({}, {4}), 0, 0);
  ExpectTensorNear(Assign(MakeTensor<float>({0, 13}, {})),
                   MakeTensor<float>({0, 13}, {}), 0, 0);
  Tensor big = RandomTensor<float>({1, 2, 1, 3, 13, 127});
  ExpectTensorNear(Assign(big), big, 0, 0);
}

// OpTester binds tensors only, so the tensor-array form runs a one-op
// program directly.
TEST(AssignOp, CopiesTensorArrays) {
  framework::ProgramDesc program;
  program.blocks.emplace_back();
  for (const char* name : {"arr", "copy"}) {
    framework::VarDesc var;
    var.name = name;
    var.kind = static_cast<int>(framework::VarKind::kLoDTensorArray);
    program.blocks[0].vars.push_back(var);
  }
  framework::OpDesc op;
  op.type = "assign";
  op.SetInput("X", {"arr"});
  op.SetOutput("Out", {"copy"});
  program.blocks[0].ops.push_back(op);

  framework::Scope scope;
  auto* arr = scope.Var("arr")->GetMutable<framework::TensorList>();
  arr->push_back(MakeTensor<int64_t>({2}, {1, 2}, {{0, 2}}));
  arr->push_back(Tensor());  // a slot never written
  arr->push_back(MakeTensor<float>({1, 1}, {3}));
  platform::DeviceContextPool pool(platform::DeviceContextOptions{});
  framework::KernelPreference preference;
  framework::Executor executor(program, preference, &pool);
  executor.Run(0, &scope);

  const auto& copy = scope.FindVar("copy")->Get<framework::TensorList>();
  ASSERT_EQ(copy.size(), 3u);
  ExpectTensorNear(copy[0], MakeTensor<int64_t>({2}, {1, 2}, {{0, 2}}), 0, 0);
  EXPECT_FALSE(copy[1].IsInitialized());
  ExpectTensorNear(copy[2], MakeTensor<float>({1, 1}, {3}), 0, 0);
  // A deep copy: the array's buffers are not shared.
  EXPECT_NE(copy[0].holder(), (*arr)[0].holder());
}

TEST(AssignOp, AllKernelsAgree) {
  OpTester t("assign");
  t.Input("X", RandomTensor<float>({13, 127})).Output("Out");
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
