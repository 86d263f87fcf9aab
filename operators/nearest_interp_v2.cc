// nearest_interp_v2: nearest-neighbour resize (spec §12).
#include "operators/interp_op.h"

namespace paddle_lite {
namespace operators {

class NearestInterpV2OpMaker : public InterpOpMaker {
 protected:
  std::string DefaultMethod() const override { return "nearest"; }
};

}  // namespace operators
}  // namespace paddle_lite

REGISTER_OPERATOR(nearest_interp_v2,
                  paddle_lite::operators::InterpOp,
                  paddle_lite::operators::NearestInterpV2OpMaker);
