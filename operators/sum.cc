// sum: element-wise sum of one or more tensors of one shape, no
// broadcasting (spec §7.4). Out may be the same variable as X[0].
#include <vector>

#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

class SumOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const std::vector<framework::DDim> dims = ctx->GetInputsDim("X");
    PADDLE_ENFORCE(!dims.empty(),
                   errors::InvalidArgument(Type(),
                                           ": X must list at least "
                                           "one tensor"));
    const framework::DataType type = ctx->GetInputDataType("X");
    const auto& names = ctx->op().InputList("X");
    for (size_t i = 1; i < dims.size(); ++i) {
      PADDLE_ENFORCE(
          dims[i] == dims[0],
          errors::InvalidArgument(Type(),
                                  ": every X must have the shape of "
                                  "X[0] ",
                                  dims[0], " (no broadcasting), but X[", i,
                                  "] (", names[i], ") is ", dims[i]));
      const framework::DataType t = ctx->GetInputTensor("X", i).dtype();
      PADDLE_ENFORCE_EQ(t, type,
                        errors::InvalidArgument(
                            Type(),
                            ": every X must have the dtype of "
                            "X[0] (",
                            type, "), but X[", i, "] (", names[i], ") is ", t));
    }
    ctx->SetOutputDim("Out", dims[0]);
    ctx->ShareLoD("X", "Out");
  }
};

class SumOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "tensors of one shape and dtype").AsDuplicable();
    AddOutput("Out", "their element-wise sum; may alias X[0]");
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(sum,
                  paddle_lite::operators::SumOp,
                  paddle_lite::operators::SumOpMaker);
