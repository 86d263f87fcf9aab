// bilinear_interp_v2: (bi)linear resize (spec §12); rank-3 and rank-5
// inputs interpolate linearly along each of their spatial axes.
#include "operators/interp_op.h"

namespace paddle_lite {
namespace operators {

class BilinearInterpV2OpMaker : public InterpOpMaker {
 protected:
  std::string DefaultMethod() const override { return "bilinear"; }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(bilinear_interp_v2,
                  paddle_lite::operators::InterpOp,
                  paddle_lite::operators::BilinearInterpV2OpMaker);
