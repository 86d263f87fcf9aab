// fuse_upsample_concat: a concat along channels whose inputs include maps
// upsampled by nearest_interp_v2 (a feature pyramid's head: DBNet joins
// its levels upsampled by 8, 4 and 2 with the finest) becomes one
// fused_upsample_concat that reads each upsampled map's source through the
// nearest index: the upsampled maps, 3 of the 4 inputs the concat read
// whole, are never written. Copies only, so the results are the same bits.
//
// An upsampling is taken as NearestUpsamplingFor (pass_utils.h) takes it
// (its size from the scale attribute alone, no align_corners, NCHW, the
// concat its only reader); the concat must be along channels (axis 1 of
// 4-D float32 tensors, no AxisTensor). Its other inputs join as they are
// (scale 1).
#include "framework/pass.h"
#include "framework/passes/pass_utils.h"

namespace paddle_lite {
namespace framework {
namespace passes {
namespace {

class FuseUpsampleConcatPass : public Pass {
 public:
  std::vector<std::string> CreatedOpTypes() const override {
    return {"fused_upsample_concat"};
  }

  std::vector<std::string> Apply(ProgramDesc* program,
                                 Scope* /*weights*/) const override {
    std::vector<std::string> changes;
    BlockDesc& block = program->blocks[0];
    for (int i = 0; i < static_cast<int>(block.ops.size()); ++i) {
      const OpDesc& concat = block.ops[i];
      if (concat.type != "concat" || !SlotEmpty(concat.inputs, "AxisTensor")) {
        continue;
      }
      const std::string out = SoleOutput(concat, "Out");
      const std::vector<std::string> args = concat.Input("X");
      const int axis = GetAttr<int32_t>(concat, "axis");
      if (out.empty() || args.empty() || (axis != 1 && axis != -3) ||
          !IsFloat32Rank4(*program, out)) {
        continue;
      }
      bool usable = true;
      for (const std::string& arg : args) {
        usable = usable && IsFloat32Rank4(*program, arg);
      }
      if (!usable) continue;

      std::vector<std::string> sources;
      std::vector<float> scale_h;
      std::vector<float> scale_w;
      std::vector<int> upsamplings;
      for (const std::string& arg : args) {
        float sh = 1.f;
        float sw = 1.f;
        const int up = NearestUpsamplingFor(*program, arg, i, &sh, &sw);
        if (up < 0) {
          sources.push_back(arg);
        } else {
          sources.push_back(SoleInput(block.ops[up], "X"));
          upsamplings.push_back(up);
        }
        scale_h.push_back(sh);
        scale_w.push_back(sw);
      }
      if (upsamplings.empty()) continue;

      std::string line = "fused concat " + OpLabel(block, i) + " with";
      for (int up : upsamplings) line += " " + OpLabel(block, up);
      changes.push_back(line + " -> " + out);
      OpDesc fused;
      fused.type = "fused_upsample_concat";
      fused.SetInput("X", sources);
      fused.SetOutput("Out", {out});
      fused.attrs["scale_h"] = scale_h;
      fused.attrs["scale_w"] = scale_w;
      block.ops[i] = std::move(fused);
      RemoveOps(&block, upsamplings);
      i -= static_cast<int>(upsamplings.size());
    }
    return changes;
  }
};

}  // namespace
}  // namespace passes
}  // namespace framework
}  // namespace paddle_lite

REGISTER_PASS(fuse_upsample_concat,
              paddle_lite::framework::passes::FuseUpsampleConcatPass,
              460);
