// concat: joins the X tensors along `axis` (ops.md 8.3).
#include "operators/shape_op_utils.h"

namespace paddle_lite {
namespace operators {

class ConcatOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "tensors of equal rank and dims except along axis")
        .AsDuplicable();
    AddInput("AxisTensor", "1-element int32/int64 tensor; overrides axis")
        .AsDispensable();
    AddOutput("Out", "the concatenation");
    AddAttr<int32_t>("axis", "dim to join along (negative: +rank)")
        .SetDefault(0);
  }
};

class ConcatOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const std::vector<framework::DDim> all_dims = ctx->GetInputsDim("X");
    PADDLE_ENFORCE_GE(
        all_dims.size(), 1u,
        errors::InvalidArgument("concat: input X needs at least one tensor."));
    int64_t axis = ctx->Attr<int32_t>("axis");
    if (HasTensorInput(*ctx, "AxisTensor")) {
      const auto values = IntInputValues(*ctx, "AxisTensor");
      PADDLE_ENFORCE_EQ(values.size(), 1u,
                        errors::InvalidArgument(
                            "concat: AxisTensor must hold one value, got ",
                            values.size(), "."));
      axis = values[0];
    }
    // Empty inputs are skipped (2.x), so they may even have another rank;
    // only when every input is empty do they all take part.
    std::vector<size_t> used;
    for (size_t i = 0; i < all_dims.size(); ++i) {
      if (framework::Product(all_dims[i]) > 0) used.push_back(i);
    }
    if (used.empty()) {
      for (size_t i = 0; i < all_dims.size(); ++i) used.push_back(i);
    }
    const framework::DDim& first = all_dims[used[0]];
    const int rank = static_cast<int>(first.size());
    const int a = NormalizeAxis(axis, rank, "concat", "axis");
    framework::DDim out = first;
    out[a] = 0;
    for (size_t i : used) {
      const framework::DDim& d = all_dims[i];
      bool fits = static_cast<int>(d.size()) == rank;
      for (int k = 0; fits && k < rank; ++k) {
        fits = k == a || d[k] == first[k];
      }
      PADDLE_ENFORCE(fits, errors::InvalidArgument(
                               "concat: X[", i, "] ", d, " does not match X[",
                               used[0], "] ", first, " outside axis ", a, "."));
      out[a] += d[a];
    }
    ctx->SetOutputDim("Out", out);
    ctx->SetOutputLoD("Out", ConcatLoD(*ctx, a));
  }

 private:
  // Out takes X[0]'s LoD; along axis 0, when every input has LoD of the same
  // depth, the sequences of all inputs are chained (offsets shifted).
  static framework::LoD ConcatLoD(const framework::InferShapeContext& ctx,
                                  int axis) {
    const auto xs = ctx.exec_context().MultiInput<framework::Tensor>("X");
    framework::LoD lod = xs[0]->lod();
    if (axis != 0 || lod.empty()) return lod;
    for (size_t i = 1; i < xs.size(); ++i) {
      if (xs[i]->lod().size() != lod.size()) return xs[0]->lod();
    }
    for (size_t i = 1; i < xs.size(); ++i) {
      const framework::LoD& in = xs[i]->lod();
      for (size_t level = 0; level < lod.size(); ++level) {
        std::vector<size_t>& offsets = lod[level];
        const size_t base = offsets.empty() ? 0 : offsets.back();
        if (offsets.empty()) offsets.push_back(0);
        for (size_t k = 1; k < in[level].size(); ++k) {
          offsets.push_back(base + in[level][k] - in[level][0]);
        }
      }
    }
    return lod;
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(concat,
                  paddle_lite::operators::ConcatOp,
                  paddle_lite::operators::ConcatOpMaker);
