// squeeze2: removes size-1 dims of X, sharing its data (ops.md 8.8).
#include "operators/shape_op_utils.h"

namespace paddle_lite {
namespace operators {

class Squeeze2OpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "input tensor");
    AddOutput("Out", "X without the squeezed dims").ViewOf("X");
    AddOutput("XShape", "training only: [0] + X.dims").AsExtra();
    AddAttr<std::vector<int32_t>>(
        "axes", "dims to remove if their size is 1; empty: every size-1 dim")
        .SetDefault({});
  }
};

class Squeeze2Op : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const framework::DDim x_dims = ctx->GetInputDim("X");
    const int rank = static_cast<int>(x_dims.size());
    const auto axes = ctx->Attr<std::vector<int32_t>>("axes");
    std::vector<bool> drop(x_dims.size(), false);
    if (axes.empty()) {
      for (int i = 0; i < rank; ++i) drop[i] = x_dims[i] == 1;
    } else if (rank == 0) {
      // Paddle 2.5+ accepts axis 0 / -1 on a 0-D tensor as a no-op.
      for (int32_t axis : axes) {
        PADDLE_ENFORCE(
            axis == 0 || axis == -1,
            errors::InvalidArgument("squeeze2: axes ", axes,
                                    " are out of range for the 0-D X."));
      }
    } else {
      for (int32_t axis : axes) {
        int a = NormalizeAxis(axis, rank, "squeeze2", "axes");
        // 2.x silently keeps a listed dim whose size is not 1.
        drop[a] = x_dims[a] == 1;
      }
    }
    framework::DDim out;
    for (int i = 0; i < rank; ++i) {
      if (!drop[i]) out.push_back(x_dims[i]);
    }
    SetReshapeLikeOutput(ctx, x_dims, out);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(squeeze2,
                  paddle_lite::operators::Squeeze2Op,
                  paddle_lite::operators::Squeeze2OpMaker);
