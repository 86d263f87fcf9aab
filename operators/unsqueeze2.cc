// unsqueeze2: inserts size-1 dims into X, sharing its data (ops.md 8.7).
#include "operators/shape_op_utils.h"

namespace paddle_lite {
namespace operators {

class Unsqueeze2OpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "input tensor");
    AddInput("AxesTensor", "1-D int32/int64 tensor of axes (first priority)")
        .AsDispensable();
    AddInput("AxesTensorList", "1-element int32/int64 tensors, one per axis")
        .AsDispensable()
        .AsDuplicable();
    AddOutput("Out", "X with size-1 dims inserted").ViewOf("X");
    AddOutput("XShape", "training only: [0] + X.dims").AsExtra();
    AddAttr<std::vector<int32_t>>("axes", "where to insert, in order")
        .SetDefault({});
  }
};

class Unsqueeze2Op : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const framework::DDim x_dims = ctx->GetInputDim("X");
    std::vector<int64_t> axes;
    if (HasTensorInput(*ctx, "AxesTensor")) {
      axes = IntInputValues(*ctx, "AxesTensor");
    } else if (HasTensorInput(*ctx, "AxesTensorList")) {
      axes = IntListInputValues(*ctx, "AxesTensorList");
    } else {
      axes = ctx->Attr<std::vector<int64_t>>("axes");
    }
    // Each axis is applied against the rank grown by the ones before it.
    framework::DDim out = x_dims;
    for (int64_t axis : axes) {
      const int64_t rank = static_cast<int64_t>(out.size());
      const int64_t pos = axis < 0 ? axis + rank + 1 : axis;
      PADDLE_ENFORCE(pos >= 0 && pos <= rank,
                     errors::InvalidArgument(
                         "unsqueeze2: axis ", axis, " of axes ", axes,
                         " is out of range for X of shape ", x_dims, " (rank ",
                         rank, " at that point; expected a value in [",
                         -rank - 1, ", ", rank, "])."));
      out.insert(out.begin() + pos, 1);
    }
    SetReshapeLikeOutput(ctx, x_dims, out);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(unsqueeze2,
                  paddle_lite::operators::Unsqueeze2Op,
                  paddle_lite::operators::Unsqueeze2OpMaker);
