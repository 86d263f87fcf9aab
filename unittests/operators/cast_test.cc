#include <vector>

#include "gtest/gtest.h"
#include "unittests/test_utils/op_tester.h"

namespace paddle_lite {
namespace testing {
namespace {

using framework::DataType;
using framework::Tensor;

Tensor Cast(const Tensor& x, DataType out_type) {
  OpTester t("cast");
  t.Input("X", x)
      .Output("Out", out_type)
      .Attr("in_dtype", static_cast<int32_t>(x.dtype()))
      .Attr("out_dtype", static_cast<int32_t>(out_type));
  t.Run();
  return t.GetOutput("Out");
}

TEST(CastOp, FloatToIntTruncatesTowardZero) {
  Tensor x = MakeTensor<float>({2, 3}, {-1.7f, -0.5f, 0.0f, 0.5f, 2.9f, 100.f});
  ExpectTensorNear(Cast(x, DataType::kInt32),
                   MakeTensor<int32_t>({2, 3}, {-1, 0, 0, 0, 2, 100}), 0, 0);
  ExpectTensorNear(Cast(x, DataType::kInt64),
                   MakeTensor<int64_t>({2, 3}, {-1, 0, 0, 0, 2, 100}), 0, 0);
}

TEST(CastOp, ToAndFromBool) {
  ExpectTensorNear(Cast(MakeTensor<float>({4}, {0.0f, -0.0f, 0.25f, -3.0f}),
                        DataType::kBool),
                   MakeTensor<bool>({4}, {false, false, true, true}), 0, 0);
  ExpectTensorNear(Cast(MakeTensor<int64_t>({3}, {0, 5, -1}), DataType::kBool),
                   MakeTensor<bool>({3}, {false, true, true}), 0, 0);
  ExpectTensorNear(
      Cast(MakeTensor<bool>({2}, {true, false}), DataType::kFloat32),
      MakeTensor<float>({2}, {1, 0}), 0, 0);
  ExpectTensorNear(Cast(MakeTensor<bool>({2}, {false, true}), DataType::kInt64),
                   MakeTensor<int64_t>({2}, {0, 1}), 0, 0);
}

TEST(CastOp, WideningAndNarrowing) {
  const int64_t big = (int64_t(1) << 40) + 3;
  ExpectTensorNear(Cast(MakeTensor<int64_t>({1}, {big}), DataType::kFloat64),
                   MakeTensor<double>({1}, {static_cast<double>(big)}), 0, 0);
  ExpectTensorNear(
      Cast(MakeTensor<int32_t>({3}, {-1, 0, 65}), DataType::kInt64),
      MakeTensor<int64_t>({3}, {-1, 0, 65}), 0, 0);
  ExpectTensorNear(Cast(MakeTensor<double>({1}, {0.1}), DataType::kFloat32),
                   MakeTensor<float>({1}, {0.1f}), 0, 0);
  ExpectTensorNear(Cast(MakeTensor<uint8_t>({2}, {0, 255}), DataType::kFloat32),
                   MakeTensor<float>({2}, {0, 255}), 0, 0);
  ExpectTensorNear(Cast(MakeTensor<int32_t>({1}, {300}), DataType::kUInt8),
                   MakeTensor<uint8_t>({1}, {44}), 0, 0);  // wraps mod 256
  ExpectTensorNear(Cast(MakeTensor<int8_t>({1}, {-5}), DataType::kInt16),
                   MakeTensor<int16_t>({1}, {-5}), 0, 0);
}

TEST(CastOp, HalfTypesRoundTrip) {
  Tensor x = MakeTensor<float>({3}, {0.5f, -2.0f, 1.0f / 3.0f});
  Tensor h = Cast(x, DataType::kFloat16);
  ASSERT_EQ(h.dtype(), DataType::kFloat16);
  EXPECT_EQ(h.data<platform::float16>()[0].bits, 0x3800);
  EXPECT_EQ(h.data<platform::float16>()[1].bits, 0xc000);
  // fp16 keeps 11 significant bits: 1/3 comes back within 2^-12.
  ExpectTensorNear(Cast(h, DataType::kFloat32), x, 2.5e-4, 0);
  Tensor b = Cast(x, DataType::kBFloat16);
  EXPECT_EQ(b.data<platform::bfloat16>()[1].bits, 0xc000);
  ExpectTensorNear(Cast(b, DataType::kFloat64),
                   MakeTensor<double>({3}, {0.5, -2.0, 1.0 / 3.0}), 2e-3, 0);
  ExpectTensorNear(Cast(h, DataType::kInt32),
                   MakeTensor<int32_t>({3}, {0, -2, 0}), 0, 0);
}

TEST(CastOp, EveryInputTypeHasAKernel) {
  const std::vector<Tensor> inputs = {
      MakeTensor<float>({2}, {1, 2}),   MakeTensor<double>({2}, {1, 2}),
      MakeTensor<int32_t>({2}, {1, 2}), MakeTensor<int64_t>({2}, {1, 2}),
      MakeTensor<int16_t>({2}, {1, 2}), MakeTensor<int8_t>({2}, {1, 2}),
      MakeTensor<uint8_t>({2}, {1, 2}), MakeTensor<bool>({2}, {true, true}),
  };
  for (const Tensor& x : inputs) {
    SCOPED_TRACE(framework::DataTypeName(x.dtype()));
    const float second = x.dtype() == DataType::kBool ? 1 : 2;
    ExpectTensorNear(Cast(x, DataType::kFloat32),
                     MakeTensor<float>({2}, {1, second}), 0, 0);
  }
}

TEST(CastOp, SameTypeCopiesAndEdgeShapes) {
  ExpectTensorNear(Cast(MakeTensor<float>({}, {3.5f}), DataType::kFloat32),
                   MakeTensor<float>({}, {3.5f}), 0, 0);
  ExpectTensorNear(Cast(MakeTensor<float>({0, 3}, {}), DataType::kInt32),
                   MakeTensor<int32_t>({0, 3}, {}), 0, 0);
  Tensor x = RandomTensor<float>({13, 127}, -100, 100);
  std::vector<float> v = ToVector<float>(x);
  std::vector<int32_t> expected(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    expected[i] = static_cast<int32_t>(v[i]);
  }
  ExpectTensorNear(Cast(x, DataType::kInt32),
                   MakeTensor<int32_t>({13, 127}, expected), 0, 0);
}

TEST(CastOp, InputTypeComesFromX) {
  // A stale in_dtype does not matter: X's type picks the kernel.
  OpTester t("cast");
  t.Input("X", MakeTensor<int64_t>({2}, {7, -8}))
      .Output("Out", DataType::kFloat32)
      .Attr("in_dtype", static_cast<int32_t>(DataType::kFloat32))
      .Attr("out_dtype", static_cast<int32_t>(DataType::kFloat32));
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<float>({2}, {7, -8}), 0, 0);
}

TEST(CastOp, KeepsLoD) {
  const framework::LoD lod = {{0, 1, 2}};
  ExpectTensorNear(Cast(MakeTensor<float>({2}, {1, 2}, lod), DataType::kInt64),
                   MakeTensor<int64_t>({2}, {1, 2}, lod), 0, 0);
}

TEST(CastOp, InPlace) {
  OpTester t("cast");
  t.Input("X", MakeTensor<float>({3}, {1.5f, -2.5f, 3}))
      .Output("Out", DataType::kInt64)
      .AliasOutputToInput("Out", "X")
      .Attr("in_dtype", static_cast<int32_t>(DataType::kFloat32))
      .Attr("out_dtype", static_cast<int32_t>(DataType::kInt64));
  t.Run();
  ExpectTensorNear(t.GetOutput("Out"), MakeTensor<int64_t>({3}, {1, -2, 3}), 0,
                   0);
}

TEST(CastOp, Errors) {
  ExpectError(
      [] {
        OpTester t("cast");
        t.Input("X", MakeTensor<float>({1}, {1}))
            .Output("Out")
            .Attr("in_dtype", 5)
            .Attr("out_dtype", 99);
        t.Run();
      },
      ErrorCode::kInvalidArgument, {"cast", "out_dtype 99"});
  ExpectError(
      [] {
        OpTester t("cast");
        t.Input("X", MakeTensor<float>({1}, {1}))
            .Output("Out")
            .Attr("in_dtype", 5);
        t.Run();
      },
      ErrorCode::kInvalidArgument, {"cast", "out_dtype"});
}

TEST(CastOp, AllKernelsAgree) {
  OpTester t("cast");
  t.Input("X", RandomTensor<float>({13, 127}))
      .Output("Out", DataType::kFloat64)
      .Attr("in_dtype", 5)
      .Attr("out_dtype", 6);
  t.RunAllKernels();
}

}  // namespace
}  // namespace testing
}  // namespace paddle_lite
