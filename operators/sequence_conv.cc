// sequence_conv: a 1-D convolution along each sequence of X's last LoD
// level, windows never crossing a sequence boundary (ops.md 16.2).
#include <algorithm>

#include "operators/sequence_lod.h"

namespace paddle_lite {
namespace operators {

class SequenceConvOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[T, D] rows of all sequences, with LoD");
    AddInput("PaddingData",
             "[up_pad + down_pad, D] rows used outside a sequence when "
             "paddingTrainable")
        .AsDispensable();
    AddInput("Filter", "[contextLength * D, M]");
    AddOutput("Out", "[T, M], with the LoD of X");
    AddAttr<int32_t>("contextLength", "rows per window").GreaterThan(0);
    AddAttr<int32_t>("contextStart",
                     "offset of a window's first row from the current row")
        .SetDefault(0);
    AddAttr<int32_t>("contextStride", "only 1 is supported")
        .SetDefault(1)
        .GreaterThan(0);
    AddAttr<bool>("paddingTrainable",
                  "rows outside a sequence come from PaddingData, not zeros")
        .SetDefault(false);
  }
};

class SequenceConvOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const framework::DDim x = ctx->GetInputDim("X");
    const framework::DDim filter = ctx->GetInputDim("Filter");
    const int context_length = ctx->Attr<int32_t>("contextLength");
    const int context_start = ctx->Attr<int32_t>("contextStart");
    const int context_stride = ctx->Attr<int32_t>("contextStride");
    PADDLE_ENFORCE_EQ(
        context_stride, 1,
        errors::Unimplemented("sequence_conv: contextStride is ",
                              context_stride, "; only 1 is supported."));
    PADDLE_ENFORCE_EQ(x.size(), 2u,
                      errors::InvalidArgument(
                          "sequence_conv: X must be 2-D [T, D], got ", x, "."));
    PADDLE_ENFORCE(
        filter.size() == 2 && filter[0] == context_length * x[1],
        errors::InvalidArgument(
            "sequence_conv: Filter must be [contextLength * D, M] = [",
            context_length, " * ", x[1], ", M], got ", filter, " (X ", x,
            ", contextLength ", context_length, ")."));
    CheckSequenceLoD(ctx->GetInputLoD("X"), x, "sequence_conv", "X");

    if (ctx->Attr<bool>("paddingTrainable")) {
      const int up_pad = std::max(0, -context_start);
      const int down_pad = std::max(0, context_start + context_length - 1);
      PADDLE_ENFORCE(
          up_pad + down_pad > 0,
          errors::InvalidArgument(
              "sequence_conv: paddingTrainable needs a window that reaches "
              "outside the current row, but contextStart is ",
              context_start, " and contextLength ", context_length, "."));
      PADDLE_ENFORCE(
          ctx->HasInput("PaddingData"),
          errors::InvalidArgument("sequence_conv: paddingTrainable is true but "
                                  "input PaddingData is missing."));
      const framework::DDim padding = ctx->GetInputDim("PaddingData");
      PADDLE_ENFORCE(
          padding.size() == 2 && padding[0] == up_pad + down_pad &&
              padding[1] == x[1],
          errors::InvalidArgument(
              "sequence_conv: PaddingData must be [up_pad + down_pad, D] = [",
              up_pad, " + ", down_pad, ", ", x[1], "], got ", padding,
              " (contextStart ", context_start, ", contextLength ",
              context_length, ")."));
    }
    ctx->SetOutputDim("Out", {x[0], filter[1]});
    ctx->ShareLoD("X", "Out");
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(sequence_conv,
                  paddle_lite::operators::SequenceConvOp,
                  paddle_lite::operators::SequenceConvOpMaker);
