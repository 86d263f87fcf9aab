// fuse_upsample_add: a feature pyramid's top-down step, a level plus the
// coarser level upsampled by nearest_interp_v2, becomes one
// fused_upsample_add that reads the coarser level through the nearest
// index; where the level is itself a product by one value per image and
// channel (PP-OCRv3's RSE layers scale it by their gate, after
// fuse_scaled_residual), that multiply joins too (XScale). Neither the
// upsampled map nor the product is stored; each output is rounded as the
// original ops round it.
//
// The upsampling is taken as NearestUpsamplingFor (pass_utils.h) takes it;
// the add must be a plain elementwise_add of 4-D float32 tensors, and the
// multiply an elementwise_mul of a 4-D map by a 4-D [., ., 1, 1] tensor
// whose product only the add reads. An activation of the sum stays an op
// of its own.
#include "framework/pass.h"
#include "framework/passes/pass_utils.h"

namespace paddle_lite {
namespace framework {
namespace passes {
namespace {

class FuseUpsampleAddPass : public Pass {
 public:
  std::vector<std::string> CreatedOpTypes() const override {
    return {"fused_upsample_add"};
  }

  std::vector<std::string> Apply(ProgramDesc* program,
                                 Scope* /*weights*/) const override {
    std::vector<std::string> changes;
    BlockDesc& block = program->blocks[0];
    for (int i = 0; i < static_cast<int>(block.ops.size()); ++i) {
      if (block.ops[i].type != "elementwise_add") continue;
      const std::string add_x = SoleInput(block.ops[i], "X");
      const std::string add_y = SoleInput(block.ops[i], "Y");
      const std::string out = SoleOutput(block.ops[i], "Out");
      if (add_x.empty() || add_y.empty() || add_x == add_y || out.empty() ||
          !IsFloat32Rank4(*program, add_x) ||
          !IsFloat32Rank4(*program, add_y) || !IsFloat32Rank4(*program, out)) {
        continue;
      }
      float sh = 1.f;
      float sw = 1.f;
      std::string map = add_x;
      int up = NearestUpsamplingFor(*program, add_y, i, &sh, &sw);
      if (up < 0) {
        map = add_y;
        up = NearestUpsamplingFor(*program, add_x, i, &sh, &sw);
      }
      if (up < 0) continue;
      const std::string source = SoleInput(block.ops[up], "X");

      std::string x = map;
      std::string x_scale;
      const int mul = ScaledMapAt(*program, map, i, &x, &x_scale);

      std::string line =
          "fused " + OpLabel(block, i) + " with " + OpLabel(block, up);
      if (mul >= 0) line += " and " + OpLabel(block, mul);
      changes.push_back(line + " -> " + out);
      OpDesc fused;
      fused.type = "fused_upsample_add";
      fused.SetInput("X", {mul >= 0 ? x : map});
      fused.SetInput("Y", {source});
      if (mul >= 0) fused.SetInput("XScale", {x_scale});
      fused.SetOutput("Out", {out});
      fused.attrs["scale_h"] = sh;
      fused.attrs["scale_w"] = sw;
      block.ops[i] = std::move(fused);
      std::vector<int> removed = {up};
      if (mul >= 0) removed.push_back(mul);
      RemoveOps(&block, removed);
      i -= static_cast<int>(removed.size());
    }
    return changes;
  }

 private:
  // When `map`, read by the add at `add`, is the product of an
  // elementwise_mul that only the add reads, of a 4-D map (*x) by a 4-D
  // [., ., 1, 1] tensor (*x_scale), both unchanged until the add: the
  // multiply's index; -1 otherwise.
  static int ScaledMapAt(const ProgramDesc& program,
                         const std::string& map,
                         int add,
                         std::string* x,
                         std::string* x_scale) {
    const BlockDesc& block = program.blocks[0];
    if (!IsIntermediate(program, map) || SoleConsumer(block, map) != add) {
      return -1;
    }
    const int mul = ProducerOf(block, map);
    if (mul < 0 || mul >= add || block.ops[mul].type != "elementwise_mul") {
      return -1;
    }
    const std::string a = SoleInput(block.ops[mul], "X");
    const std::string b = SoleInput(block.ops[mul], "Y");
    if (a.empty() || b.empty() || a == b || !IsFloat32Rank4(program, a) ||
        !IsFloat32Rank4(program, b)) {
      return -1;
    }
    auto per_channel = [&](const std::string& name) {
      const VarDesc* var = program.FindVarRecursive(0, name);
      return var->dims[2] == 1 && var->dims[3] == 1;
    };
    // The gate is the operand of 1 x 1 pixels; a map of 1 x 1 pixels
    // declared as such is left alone (either could be the gate).
    if (per_channel(a) == per_channel(b)) return -1;
    *x = per_channel(b) ? a : b;
    *x_scale = per_channel(b) ? b : a;
    for (const std::string& name : {*x, *x_scale}) {
      for (int w : WritersOf(block, name)) {
        if (w > mul && w < add) return -1;
      }
    }
    return mul;
  }
};

}  // namespace
}  // namespace passes
}  // namespace framework
}  // namespace paddle_lite

REGISTER_PASS(fuse_upsample_add,
              paddle_lite::framework::passes::FuseUpsampleAddPass,
              470);
