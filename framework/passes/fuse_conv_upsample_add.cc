// fuse_conv_upsample_add: a fused_conv2d whose ResidualData is a nearest
// upsampling (nearest_interp_v2 as NearestUpsamplingFor takes it) only it
// reads becomes a fused_conv2d_upsample_add that reads the upsampling's
// source through the nearest index: a feature pyramid's top-down step in
// PP-OCRv2's detector, a 1x1 convolution of the finer level plus the
// coarser level upsampled by 2, after fuse_conv_residual made the add the
// convolution's residual. The upsampled map, as large as the output, is
// then neither written nor read.
//
// Only where the CPU kernel runs it on its own loops: a float32 1x1
// convolution with stride 1, no padding and one group, of NCHW maps, whose
// filter is a model weight. Any activation the convolution took stays.
#include "framework/pass.h"
#include "framework/passes/pass_utils.h"

namespace paddle_lite {
namespace framework {
namespace passes {
namespace {

bool AllZero(const std::vector<int32_t>& values) {
  for (int32_t v : values) {
    if (v != 0) return false;
  }
  return true;
}

class FuseConvUpsampleAddPass : public Pass {
 public:
  std::vector<std::string> CreatedOpTypes() const override {
    return {"fused_conv2d_upsample_add"};
  }

  std::vector<std::string> Apply(ProgramDesc* program,
                                 Scope* weights) const override {
    std::vector<std::string> changes;
    BlockDesc& block = program->blocks[0];
    for (int i = 0; i < static_cast<int>(block.ops.size()); ++i) {
      const OpDesc& conv = block.ops[i];
      if (conv.type != "fused_conv2d" ||
          !PointwiseConv(*program, *weights, conv)) {
        continue;
      }
      const std::string residual = SoleInput(conv, "ResidualData");
      float scale_h = 1.f;
      float scale_w = 1.f;
      if (residual.empty() || UsedInSubBlock(*program, residual)) continue;
      const int up =
          NearestUpsamplingFor(*program, residual, i, &scale_h, &scale_w);
      if (up < 0) continue;
      const std::string source = SoleInput(block.ops[up], "X");
      changes.push_back("fused " + OpLabel(block, i) + " with " +
                        OpLabel(block, up) + ": ResidualData '" + source +
                        "' upsampled");
      OpDesc& fused = block.ops[i];
      fused.type = "fused_conv2d_upsample_add";
      fused.SetInput("ResidualData", {source});
      fused.attrs["scale_h"] = scale_h;
      fused.attrs["scale_w"] = scale_w;
      RemoveOps(&block, {up});
      --i;  // the upsampling came before the convolution
    }
    return changes;
  }

 private:
  // True for a float32 1x1 convolution with stride 1, no padding and one
  // group, of NCHW maps, whose filter is a model weight.
  static bool PointwiseConv(const ProgramDesc& program,
                            const Scope& weights,
                            const OpDesc& conv) {
    const std::string layout = GetAttr<std::string>(conv, "data_format");
    if (layout != "NCHW" && layout != "AnyLayout") return false;
    const Tensor* filter =
        ConstantValue(program, weights, SoleInput(conv, "Filter"));
    if (filter == nullptr || filter->rank() != 4 ||
        filter->dtype() != DataType::kFloat32 || filter->dims()[2] != 1 ||
        filter->dims()[3] != 1) {
      return false;
    }
    const std::vector<int32_t> strides =
        GetAttr<std::vector<int32_t>>(conv, "strides");
    return GetAttr<int32_t>(conv, "groups") == 1 && strides.size() == 2 &&
           strides[0] == 1 && strides[1] == 1 &&
           AllZero(GetAttr<std::vector<int32_t>>(conv, "paddings"));
  }
};

}  // namespace
}  // namespace passes
}  // namespace framework
}  // namespace paddle_lite

REGISTER_PASS(fuse_conv_upsample_add,
              paddle_lite::framework::passes::FuseConvUpsampleAddPass,
              420);
