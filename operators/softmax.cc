// softmax: Out = exp(X - max) / sum(exp(X - max)) along `axis`.
#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

class SoftmaxOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  void InferShape(framework::InferShapeContext* ctx) const override {
    const framework::DDim dims = ctx->GetInputDim("X");
    const int axis = ctx->Attr<int>("axis");
    // A 0-D input accepts axis -1 and 0, like a 1-D one.
    const int rank = std::max(static_cast<int>(dims.size()), 1);
    PADDLE_ENFORCE(
        axis >= -rank && axis < rank,
        errors::InvalidArgument("softmax: axis ", axis, " is out of range [",
                                -rank, ", ", rank, ") for X ", dims, "."));
    ctx->SetOutputDim("Out", dims);
    ctx->ShareLoD("X", "Out");
  }
};

class SoftmaxOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "input tensor");
    AddOutput("Out", "softmax of X along axis, same shape");
    AddAttr<int>("axis", "dim to normalize; negative counts from the end")
        .SetDefault(-1);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(softmax,
                  paddle_lite::operators::SoftmaxOp,
                  paddle_lite::operators::SoftmaxOpMaker);
