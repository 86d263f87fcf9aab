// flatten_contiguous_range: merges dims start_axis..stop_axis of X into one,
// sharing X's data (ops.md 8.10).
#include "operators/shape_op_utils.h"

namespace paddle_lite {
namespace operators {

class FlattenContiguousRangeOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "input tensor");
    AddOutput("Out", "X with dims start_axis..stop_axis merged").ViewOf("X");
    AddOutput("XShape", "training only: [0] + X.dims").AsExtra();
    AddAttr<int32_t>("start_axis", "first merged dim (negative: +rank)")
        .SetDefault(1);
    AddAttr<int32_t>("stop_axis", "last merged dim, inclusive").SetDefault(1);
  }
};

class FlattenContiguousRangeOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const framework::DDim x_dims = ctx->GetInputDim("X");
    const int rank = static_cast<int>(x_dims.size());
    if (rank == 0) {
      // A 0-D tensor flattens to one element whatever the axes say.
      SetReshapeLikeOutput(ctx, x_dims, {1});
      return;
    }
    const std::string op = "flatten_contiguous_range";
    const int start =
        NormalizeAxis(ctx->Attr<int32_t>("start_axis"), rank, op, "start_axis");
    const int stop =
        NormalizeAxis(ctx->Attr<int32_t>("stop_axis"), rank, op, "stop_axis");
    PADDLE_ENFORCE_LE(
        start, stop,
        errors::InvalidArgument(op, ": start_axis (",
                                ctx->Attr<int32_t>("start_axis"), " -> ", start,
                                ") must not come after stop_axis (",
                                ctx->Attr<int32_t>("stop_axis"), " -> ", stop,
                                ") for X of shape ", x_dims, "."));
    framework::DDim out(x_dims.begin(), x_dims.begin() + start);
    out.push_back(framework::Product(x_dims, start, stop + 1));
    out.insert(out.end(), x_dims.begin() + stop + 1, x_dims.end());
    SetReshapeLikeOutput(ctx, x_dims, out);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(flatten_contiguous_range,
                  paddle_lite::operators::FlattenContiguousRangeOp,
                  paddle_lite::operators::FlattenContiguousRangeOpMaker);
