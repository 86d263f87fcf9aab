// less_than: Out = X < Y element-wise, bool, with the broadcasting of the
// element-wise ops (spec §6.2).
#include "operators/elementwise_op.h"

namespace paddle_lite {
namespace operators {

class LessThanOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "left operand");
    AddInput("Y", "right operand; either operand may have the lower rank");
    AddOutput("Out", "bool X < Y, broadcast");
    AddAttr<int32_t>("axis",
                     "dim of the higher-rank operand where the lower-rank "
                     "one starts; -1 aligns trailing dims")
        .SetDefault(-1);
    AddAttr<bool>("force_cpu", "placement hint only").SetDefault(false);
  }
};

}  // namespace operators
}  // namespace paddle_lite

// Shape inference is the element-wise ops': same dtype, broadcast dims,
// X's LoD.
REGISTER_OPERATOR(less_than,
                  paddle_lite::operators::ElementwiseOp,
                  paddle_lite::operators::LessThanOpMaker);
