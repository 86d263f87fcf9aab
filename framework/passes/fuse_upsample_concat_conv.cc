// fuse_upsample_concat_conv: a fused_upsample_concat whose join only a 3x3
// convolution reads becomes part of it, one fused_upsample_concat_conv2d
// that gathers each tile of the join from the parts as it goes: DBNet's
// head (the pyramid's four levels joined, then the 3x3 convolution of its
// binarization branch), whose join is the network's largest map and was
// written only to be read once.
//
// Only where the CPU kernel runs it on its own Winograd loops: a float32
// conv2d or fused_conv2d (no ResidualData) of NCHW maps with a 3x3 filter
// that is a model weight, stride and dilation 1, one group, at least 32
// input and 16 output channels (UseWinograd in
// kernels/cpu/mkldnn/conv_kernel.h), and no op between the two writing a
// part. Any activation the convolution took stays.
#include "framework/pass.h"
#include "framework/passes/pass_utils.h"

namespace paddle_lite {
namespace framework {
namespace passes {
namespace {

bool AllOnes(const std::vector<int32_t>& values) {
  for (int32_t v : values) {
    if (v != 1) return false;
  }
  return values.size() == 2;
}

class FuseUpsampleConcatConvPass : public Pass {
 public:
  std::vector<std::string> CreatedOpTypes() const override {
    return {"fused_upsample_concat_conv2d"};
  }

  std::vector<std::string> Apply(ProgramDesc* program,
                                 Scope* weights) const override {
    std::vector<std::string> changes;
    BlockDesc& block = program->blocks[0];
    for (int i = 0; i < static_cast<int>(block.ops.size()); ++i) {
      if (block.ops[i].type != "fused_upsample_concat") continue;
      const std::string joined = SoleOutput(block.ops[i], "Out");
      if (joined.empty() || !IsIntermediate(*program, joined)) continue;
      const int c = SoleConsumer(block, joined);
      if (c <= i || !WinogradConv(*program, *weights, block.ops[c], joined)) {
        continue;
      }
      const std::vector<std::string> parts = block.ops[i].Input("X");
      bool parts_kept = true;
      for (const std::string& part : parts) {
        for (int writer : WritersOf(block, part)) {
          parts_kept = parts_kept && !(writer > i && writer < c);
        }
      }
      if (!parts_kept) continue;
      changes.push_back("fused " + OpLabel(block, i) + " into " +
                        OpLabel(block, c) + ": its Input '" + joined +
                        "' gathered from the parts");
      const OpDesc& conv = block.ops[c];
      OpDesc fused;
      fused.type = "fused_upsample_concat_conv2d";
      fused.SetInput("X", parts);
      fused.SetInput("Filter", conv.Input("Filter"));
      if (!SlotEmpty(conv.inputs, "Bias")) {
        fused.SetInput("Bias", conv.Input("Bias"));
      }
      fused.outputs = conv.outputs;
      fused.attrs = conv.attrs;
      fused.attrs["scale_h"] = block.ops[i].attrs.at("scale_h");
      fused.attrs["scale_w"] = block.ops[i].attrs.at("scale_w");
      block.ops[c] = std::move(fused);
      RemoveOps(&block, {i});
      --i;
    }
    return changes;
  }

 private:
  // True for a float32 conv2d or fused_conv2d reading `joined` as its
  // Input, without ResidualData, of NCHW maps, whose filter is a 3x3
  // model weight of at least 32 input and 16 output channels, with
  // stride and dilation 1 and one group.
  static bool WinogradConv(const ProgramDesc& program,
                           const Scope& weights,
                           const OpDesc& conv,
                           const std::string& joined) {
    if ((conv.type != "conv2d" && conv.type != "fused_conv2d") ||
        SoleInput(conv, "Input") != joined ||
        !SlotEmpty(conv.inputs, "ResidualData")) {
      return false;
    }
    const std::string layout = GetAttr<std::string>(conv, "data_format");
    if (layout != "NCHW" && layout != "AnyLayout") return false;
    const Tensor* filter =
        ConstantValue(program, weights, SoleInput(conv, "Filter"));
    if (filter == nullptr || filter->rank() != 4 ||
        filter->dtype() != DataType::kFloat32 || filter->dims()[0] < 16 ||
        filter->dims()[1] < 32 || filter->dims()[2] != 3 ||
        filter->dims()[3] != 3) {
      return false;
    }
    return GetAttr<int32_t>(conv, "groups") == 1 &&
           AllOnes(GetAttr<std::vector<int32_t>>(conv, "strides")) &&
           AllOnes(GetAttr<std::vector<int32_t>>(conv, "dilations"));
  }
};

}  // namespace
}  // namespace passes
}  // namespace framework
}  // namespace paddle_lite

REGISTER_PASS(fuse_upsample_concat_conv,
              paddle_lite::framework::passes::FuseUpsampleConcatConvPass,
              465);
