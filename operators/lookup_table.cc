// lookup_table (v1): rows of W picked by Ids, whose last dim must be 1
// (spec §11.1).
#include "operators/lookup_table_shape.h"

namespace paddle_lite {
namespace operators {

class LookupTableOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const auto table = CheckLookupTableInputs(*ctx);
    auto out = ctx->GetInputDim("Ids");
    PADDLE_ENFORCE(!out.empty() && out.back() == 1,
                   errors::InvalidArgument(
                       Type(),
                       ": the last dim of Ids must be 1 (e.g. [T, 1]), "
                       "got Ids ",
                       out, "; lookup_table_v2 takes ids of any shape"));
    out.back() = table[1];
    ctx->SetOutputDim("Out", out);
    ctx->ShareLoD("Ids", "Out");
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(lookup_table,
                  paddle_lite::operators::LookupTableOp,
                  paddle_lite::operators::LookupTableOpMaker);
