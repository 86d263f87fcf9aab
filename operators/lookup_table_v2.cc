// lookup_table_v2: rows of W picked by Ids of any shape; Out = Ids.dims +
// [D] (spec §11.2).
#include "operators/lookup_table_shape.h"

namespace paddle_lite {
namespace operators {

class LookupTableV2Op : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  void InferShape(framework::InferShapeContext* ctx) const override {
    const auto table = CheckLookupTableInputs(*ctx);
    auto out = ctx->GetInputDim("Ids");
    out.push_back(table[1]);
    ctx->SetOutputDim("Out", out);
    ctx->ShareLoD("Ids", "Out");
  }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(lookup_table_v2,
                  paddle_lite::operators::LookupTableV2Op,
                  paddle_lite::operators::LookupTableOpMaker);
