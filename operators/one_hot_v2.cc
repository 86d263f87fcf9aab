// one_hot_v2: appends a one-hot axis of size depth to integer ids (spec
// §11.3).
#include <cstdint>

#include "framework/op_registry.h"
#include "operators/shape_op_utils.h"

namespace paddle_lite {
namespace operators {

class OneHotV2Op : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    auto dims = ctx->GetInputDim("X");
    int64_t depth = ctx->Attr<int>("depth");
    if (HasTensorInput(*ctx, "depth_tensor")) {
      const auto values = IntInputValues(*ctx, "depth_tensor");
      PADDLE_ENFORCE_EQ(values.size(), 1u,
                        errors::InvalidArgument(
                            Type(), ": depth_tensor must hold one value, got ",
                            values.size()));
      depth = values[0];
    }
    PADDLE_ENFORCE_GE(
        depth, 0,
        errors::InvalidArgument(Type(), ": depth is ", depth, " for X ", dims,
                                "; set the depth attribute or bind "
                                "depth_tensor to the number of classes"));
    const int dtype = ctx->Attr<int>("dtype");
    PADDLE_ENFORCE(
        dtype == 2 || dtype == 3 || dtype == 5 || dtype == 6,
        errors::Unimplemented(Type(), ": output dtype ", dtype,
                              " is not supported; use 5 (float32), 6 "
                              "(float64), 2 (int32) or 3 (int64)"));
    dims.push_back(depth);
    ctx->SetOutputDim("Out", dims);
    ctx->ShareLoD("X", "Out");
  }
};

class OneHotV2OpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "int32/int64 class ids, any shape");
    AddInput("depth_tensor", "1-element int tensor overriding depth")
        .AsDispensable();
    AddOutput("Out", "X.dims + [depth], 1 where the index equals the id");
    AddAttr<int32_t>("depth", "number of classes").SetDefault(-1);
    AddAttr<int32_t>("dtype", "output type (VarType number), 5 = float32")
        .SetDefault(5);
    AddAttr<bool>("allow_out_of_range",
                  "ids outside [0, depth) give all-zero rows instead of an "
                  "error")
        .SetDefault(false);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(one_hot_v2,
                  paddle_lite::operators::OneHotV2Op,
                  paddle_lite::operators::OneHotV2OpMaker);
