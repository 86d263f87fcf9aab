// split: cuts X along `axis` into num equal parts or parts of the given
// sections (ops.md 8.4).
#include "operators/shape_op_utils.h"

namespace paddle_lite {
namespace operators {

class SplitOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "input tensor");
    AddInput("AxisTensor", "1-element int32/int64 tensor; overrides axis")
        .AsDispensable();
    AddInput("SectionsTensorList",
             "1-element int32/int64 tensors; override sections")
        .AsDispensable()
        .AsDuplicable();
    AddOutput("Out", "the parts, in order along axis").AsDuplicable();
    AddAttr<int32_t>("axis", "dim to split (negative: +rank)").SetDefault(0);
    AddAttr<int32_t>("num", "number of equal parts; 0: use sections")
        .SetDefault(0);
    AddAttr<std::vector<int32_t>>("sections",
                                  "part sizes; one -1 takes the remainder")
        .SetDefault({});
  }
};

class SplitOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const framework::DDim x_dims = ctx->GetInputDim("X");
    int64_t axis = ctx->Attr<int32_t>("axis");
    if (HasTensorInput(*ctx, "AxisTensor")) {
      const auto values = IntInputValues(*ctx, "AxisTensor");
      PADDLE_ENFORCE_EQ(
          values.size(), 1u,
          errors::InvalidArgument("split: AxisTensor must hold one value, got ",
                                  values.size(), "."));
      axis = values[0];
    }
    const int a =
        NormalizeAxis(axis, static_cast<int>(x_dims.size()), "split", "axis");
    const int64_t dim = x_dims[a];
    const size_t outs = ctx->exec_context().OutputSize("Out");
    const int num = ctx->Attr<int32_t>("num");

    std::vector<int64_t> sizes;
    if (num > 0) {
      PADDLE_ENFORCE_EQ(
          dim % num, 0,
          errors::InvalidArgument(
              "split: X ", x_dims, " has size ", dim, " along axis ", a,
              ", which is not divisible by num = ", num, "."));
      sizes.assign(num, dim / num);
    } else {
      sizes = HasTensorInput(*ctx, "SectionsTensorList")
                  ? IntListInputValues(*ctx, "SectionsTensorList")
                  : ctx->Attr<std::vector<int64_t>>("sections");
      ResolveSections(x_dims, a, &sizes);
    }
    PADDLE_ENFORCE_EQ(
        sizes.size(), outs,
        errors::InvalidArgument("split: ", sizes.size(), " parts (num = ", num,
                                ", sections ", sizes, ") but Out has ", outs,
                                " variables."));
    std::vector<framework::DDim> out_dims(outs, x_dims);
    for (size_t i = 0; i < outs; ++i) out_dims[i][a] = sizes[i];
    ctx->SetOutputsDim("Out", out_dims);
    // Paddle passes the LoD on only when rows are not split.
    const framework::LoD lod =
        a != 0 ? ctx->GetInputLoD("X") : framework::LoD{};
    for (auto* out :
         ctx->exec_context().MultiOutput<framework::Tensor>("Out")) {
      if (out != nullptr) out->set_lod(lod);
    }
  }

 private:
  static void ResolveSections(const framework::DDim& x_dims,
                              int axis,
                              std::vector<int64_t>* sections) {
    const int64_t dim = x_dims[axis];
    int unknown = -1;
    int64_t known = 0;
    for (size_t i = 0; i < sections->size(); ++i) {
      const int64_t s = (*sections)[i];
      if (s == -1) {
        PADDLE_ENFORCE_EQ(unknown, -1,
                          errors::InvalidArgument("split: sections ", *sections,
                                                  " may hold only one -1."));
        unknown = static_cast<int>(i);
      } else {
        PADDLE_ENFORCE_GE(
            s, 0,
            errors::InvalidArgument("split: sections ", *sections,
                                    " holds the invalid size ", s, "."));
        known += s;
      }
    }
    PADDLE_ENFORCE(
        !sections->empty(),
        errors::InvalidArgument("split: num is 0 and sections is empty; "
                                "one of them must say how to split."));
    if (unknown >= 0) {
      PADDLE_ENFORCE_LE(
          known, dim,
          errors::InvalidArgument("split: sections ", *sections, " need ",
                                  known, " rows along axis ", axis, ", but X ",
                                  x_dims, " has ", dim, "."));
      (*sections)[unknown] = dim - known;
    } else {
      PADDLE_ENFORCE_EQ(
          known, dim,
          errors::InvalidArgument("split: sections ", *sections, " sum to ",
                                  known, ", but X ", x_dims, " has size ", dim,
                                  " along axis ", axis, "."));
    }
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(split,
                  paddle_lite::operators::SplitOp,
                  paddle_lite::operators::SplitOpMaker);
