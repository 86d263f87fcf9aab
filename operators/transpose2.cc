// transpose2: Out.dims[i] = X.dims[axis[i]] (ops.md 8.2).
#include "operators/shape_op_utils.h"

namespace paddle_lite {
namespace operators {

class Transpose2OpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "input tensor");
    AddOutput("Out", "X with permuted dims");
    AddOutput("XShape", "training only: [0] + X.dims").AsExtra();
    AddAttr<std::vector<int32_t>>("axis", "permutation of 0..rank-1");
  }
};

class Transpose2Op : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const framework::DDim x_dims = ctx->GetInputDim("X");
    const int rank = static_cast<int>(x_dims.size());
    const auto axis = ctx->Attr<std::vector<int32_t>>("axis");
    PADDLE_ENFORCE_EQ(static_cast<int>(axis.size()), rank,
                      errors::InvalidArgument(
                          "transpose2: axis ", axis, " has ", axis.size(),
                          " entries, but X ", x_dims, " has rank ", rank, "."));
    std::vector<bool> seen(rank, false);
    framework::DDim out(rank);
    for (int i = 0; i < rank; ++i) {
      // 3.x normalizes negative entries; older files only hold 0..rank-1.
      const int a = axis[i] < 0 ? axis[i] + rank : axis[i];
      PADDLE_ENFORCE(
          a >= 0 && a < rank && !seen[a],
          errors::InvalidArgument(
              "transpose2: axis ", axis, " is not a permutation of 0..",
              rank - 1, " (entry ", i, " = ", axis[i],
              " is out of range or repeated) for X ", x_dims, "."));
      seen[a] = true;
      out[i] = x_dims[a];
    }
    ctx->SetOutputDim("Out", out);
    // Sequence offsets stay meaningful only while dim 0 stays first.
    if (rank > 0 && (axis[0] == 0 || axis[0] == -rank)) {
      ctx->ShareLoD("X", "Out");
    } else {
      ctx->SetOutputLoD("Out", {});
    }
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(transpose2,
                  paddle_lite::operators::Transpose2Op,
                  paddle_lite::operators::Transpose2OpMaker);
