// slice: the sub-block [start, end) of Input on each of `axes`
// (ops.md 8.5).
#include "operators/slice_utils.h"
#include "operators/value_inputs_context.h"

namespace paddle_lite {
namespace operators {

class SliceOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "input tensor");
    AddInput("StartsTensor", "1-D int32/int64 tensor of all starts")
        .AsDispensable();
    AddInput("EndsTensor", "1-D int32/int64 tensor of all ends")
        .AsDispensable();
    AddInput("StartsTensorList", "1-element tensors, one start per axis")
        .AsDispensable()
        .AsDuplicable();
    AddInput("EndsTensorList", "1-element tensors, one end per axis")
        .AsDispensable()
        .AsDuplicable();
    AddOutput("Out", "the slice");
    AddAttr<std::vector<int32_t>>("axes", "axes being sliced");
    AddAttr<std::vector<int32_t>>("starts", "first index per axis")
        .SetDefault({});
    AddAttr<std::vector<int32_t>>("ends", "one past the last index per axis")
        .SetDefault({});
    AddAttr<std::vector<int32_t>>(
        "infer_flags", "per axis: 1 known when built, -1 from a tensor")
        .SetDefault({});
    AddAttr<std::vector<int32_t>>("decrease_axis",
                                  "size-1 axes dropped from Out")
        .SetDefault({});
  }
};

class SliceOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const ValueInputsContext values(
        *ctx,
        {"StartsTensor", "EndsTensor", "StartsTensorList", "EndsTensorList"});
    const SliceBounds bounds = ComputeSliceBounds(values.context());
    ctx->SetOutputDim("Out", bounds.out_dims);
    // Rows keep their sequences only when dim 0 is not sliced.
    const auto axes = ctx->Attr<std::vector<int64_t>>("axes");
    const int rank = static_cast<int>(ctx->GetInputDim("Input").size());
    bool rows_sliced = false;
    for (int64_t axis : axes) rows_sliced |= axis == 0 || axis == -rank;
    if (rows_sliced) {
      ctx->SetOutputLoD("Out", {});
    } else {
      ctx->ShareLoD("Input", "Out");
    }
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(slice,
                  paddle_lite::operators::SliceOp,
                  paddle_lite::operators::SliceOpMaker);
