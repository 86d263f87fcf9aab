// reshape2: Out has X's data under a new shape (ops.md 8.1).
#include "operators/shape_op_utils.h"

namespace paddle_lite {
namespace operators {

class Reshape2OpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "input tensor");
    AddInput("Shape", "1-D int32/int64 tensor with the target shape")
        .AsDispensable();
    AddInput("ShapeTensor", "1-element int32/int64 tensors, one per dim")
        .AsDispensable()
        .AsDuplicable();
    AddOutput("Out", "X reshaped").ViewOf("X");
    AddOutput("XShape", "training only: [0] + X.dims").AsExtra();
    AddAttr<std::vector<int32_t>>(
        "shape", "target shape; 0 copies X's dim, one -1 is inferred")
        .SetDefault({});
  }
};

class Reshape2Op : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const framework::DDim x_dims = ctx->GetInputDim("X");
    // A tensor source wins; the attribute then only holds placeholders.
    std::vector<int64_t> shape;
    if (HasTensorInput(*ctx, "ShapeTensor")) {
      shape = IntListInputValues(*ctx, "ShapeTensor");
    } else if (HasTensorInput(*ctx, "Shape")) {
      shape = IntInputValues(*ctx, "Shape");
    } else {
      shape = ctx->Attr<std::vector<int64_t>>("shape");
    }
    SetReshapeLikeOutput(ctx, x_dims, ResolveShape(x_dims, shape));
  }

 private:
  static framework::DDim ResolveShape(const framework::DDim& x_dims,
                                      const std::vector<int64_t>& shape) {
    const int64_t x_numel = framework::Product(x_dims);
    framework::DDim out(shape.size());
    int unknown = -1;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == -1) {
        PADDLE_ENFORCE_EQ(
            unknown, -1,
            errors::InvalidArgument("reshape2: only one dim of shape ", shape,
                                    " may be -1, but shape[", unknown,
                                    "] and shape[", i, "] are both -1."));
        unknown = static_cast<int>(i);
        out[i] = 1;
      } else if (shape[i] == 0) {
        PADDLE_ENFORCE_LT(i, x_dims.size(),
                          errors::InvalidArgument(
                              "reshape2: shape[", i, "] = 0 copies X's dim ", i,
                              ", but X is ", x_dims, " of rank ", x_dims.size(),
                              " (shape ", shape, ")."));
        out[i] = x_dims[i];
      } else {
        PADDLE_ENFORCE_GT(
            shape[i], 0,
            errors::InvalidArgument("reshape2: shape[", i, "] = ", shape[i],
                                    " is invalid in shape ", shape,
                                    "; dims must be positive, 0 (copy) or "
                                    "-1 (inferred)."));
        out[i] = shape[i];
      }
    }
    if (unknown >= 0) {
      int64_t known = framework::Product(out);
      if (known != 0) {
        PADDLE_ENFORCE_EQ(
            x_numel % known, 0,
            errors::InvalidArgument(
                "reshape2: cannot reshape X ", x_dims, " (", x_numel,
                " elements) to shape ", shape, ": ", x_numel,
                " is not divisible by the product of the other dims, ", known,
                "."));
        out[unknown] = x_numel / known;
      } else {
        // X is empty and so is another target dim: any value fits. Pair
        // zero dims with zero dims and infer from the rest, so that
        // [0, 3, 4] with shape [0, -1] gives [0, 12] as it would for a
        // non-empty batch.
        int64_t x_nonzero = 1;
        for (int64_t d : x_dims) x_nonzero *= d == 0 ? 1 : d;
        int64_t out_nonzero = 1;
        for (int64_t d : out) out_nonzero *= d == 0 ? 1 : d;
        PADDLE_ENFORCE_EQ(x_nonzero % out_nonzero, 0,
                          errors::InvalidArgument(
                              "reshape2: cannot infer the -1 dim of shape ",
                              shape, " for the empty X ", x_dims, "."));
        out[unknown] = x_nonzero / out_nonzero;
      }
    }
    PADDLE_ENFORCE_EQ(
        framework::Product(out), x_numel,
        errors::InvalidArgument(
            "reshape2: cannot reshape X ", x_dims, " (", x_numel,
            " elements) to shape ", shape, " (resolved ", out, ", ",
            framework::Product(out), " elements): element counts differ."));
    return out;
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(reshape2,
                  paddle_lite::operators::Reshape2Op,
                  paddle_lite::operators::Reshape2OpMaker);
