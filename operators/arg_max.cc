// arg_max: index of the maximum along an axis (spec §13).
#include <algorithm>
#include <string>

#include "framework/op_registry.h"
#include "operators/shape_op_utils.h"

namespace paddle_lite {
namespace operators {

class ArgMaxOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const auto x = ctx->GetInputDim("X");
    const int rank = static_cast<int>(x.size());
    const int64_t axis_attr = ctx->Attr<int64_t>("axis");
    const int dtype = ctx->Attr<int>("dtype");
    PADDLE_ENFORCE(dtype == -1 || dtype == 2 || dtype == 3,
                   errors::InvalidArgument(Type(),
                                           ": attribute 'dtype' must be 2 "
                                           "(int32), 3 (int64) or -1 (int64), "
                                           "got ",
                                           dtype));
    // A 0-D input behaves like [1]: axis 0 or -1.
    const int axis =
        NormalizeAxis(axis_attr, std::max(rank, 1), Type(), "axis");
    const bool flatten = ctx->Attr<bool>("flatten");
    const int64_t reduced =
        flatten ? framework::Product(x) : (rank == 0 ? 1 : x[axis]);
    framework::DDim out;
    if (flatten) {
      // X is seen as 1-D: one index, of X's rank with keepdims (as
      // Paddle's), else [1] as in files saved by Paddle <= 2.4 (>= 2.5
      // gives 0-D; the op cannot see the program version).
      const bool keepdims = ctx->Attr<bool>("keepdims");
      out = framework::DDim(
          keepdims ? static_cast<size_t>(std::max(rank, 1)) : 1, int64_t{1});
    } else {
      const bool keepdims = ctx->Attr<bool>("keepdims");
      for (int i = 0; i < rank; ++i) {
        if (i != axis) {
          out.push_back(x[i]);
        } else if (keepdims) {
          out.push_back(1);
        }
      }
      if (out.empty()) out = {1};  // <= 2.4 shape of a reduced 1-D input
    }
    // An empty reduced axis has no maximum (other empty dims just give an
    // empty result).
    PADDLE_ENFORCE(
        reduced > 0 || framework::Product(out) == 0,
        errors::InvalidArgument(Type(), ": X ", x, " has no elements along ",
                                flatten ? std::string("the flattened input")
                                        : "axis " + std::to_string(axis),
                                "; there is no maximum to index"));
    ctx->SetOutputDim("Out", out);
  }
};

class ArgMaxOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "input");
    AddOutput("Out", "int64 (or int32 per dtype) indices of the maxima");
    AddAttr<int64_t>("axis", "reduced axis; negative counts from the end");
    AddAttr<bool>("keepdims", "keep the reduced axis as size 1")
        .SetDefault(false);
    AddAttr<bool>("flatten", "index into X flattened to 1-D; axis ignored")
        .SetDefault(false);
    AddAttr<int32_t>("dtype", "output type: 3 int64, 2 int32, -1 int64")
        .SetDefault(3);
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(arg_max,
                  paddle_lite::operators::ArgMaxOp,
                  paddle_lite::operators::ArgMaxOpMaker);
