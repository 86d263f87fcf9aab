// stack: joins equally shaped X tensors along a new dim `axis`
// (ops.md 8.6).
#include "operators/shape_op_utils.h"

namespace paddle_lite {
namespace operators {

class StackOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "tensors of one shape").AsDuplicable();
    AddOutput("Y", "X stacked: Y[..., i, ...] = X[i][...]");
    AddAttr<int32_t>("axis", "position of the new dim (negative: +rank+1)")
        .SetDefault(0);
  }
};

class StackOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const std::vector<framework::DDim> dims = ctx->GetInputsDim("X");
    PADDLE_ENFORCE_GE(
        dims.size(), 1u,
        errors::InvalidArgument("stack: input X needs at least one tensor."));
    for (size_t i = 1; i < dims.size(); ++i) {
      PADDLE_ENFORCE(dims[i] == dims[0],
                     errors::InvalidArgument(
                         "stack: all X must have one shape, but X[0] is ",
                         dims[0], " and X[", i, "] is ", dims[i], "."));
    }
    const int rank = static_cast<int>(dims[0].size());
    const int attr = ctx->Attr<int32_t>("axis");
    PADDLE_ENFORCE(attr >= -(rank + 1) && attr <= rank,
                   errors::InvalidArgument("stack: axis = ", attr,
                                           " is out of range for X of "
                                           "shape ",
                                           dims[0], "; expected a value in [",
                                           -(rank + 1), ", ", rank, "]."));
    const int axis = attr < 0 ? attr + rank + 1 : attr;
    framework::DDim out = dims[0];
    out.insert(out.begin() + axis, static_cast<int64_t>(dims.size()));
    ctx->SetOutputDim("Y", out);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(stack,
                  paddle_lite::operators::StackOp,
                  paddle_lite::operators::StackOpMaker);
