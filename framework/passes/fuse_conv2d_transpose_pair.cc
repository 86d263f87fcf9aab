// fuse_conv2d_transpose_pair: two conv2d_transpose ops in a row whose
// kernels equal their strides (no padding, dilation 1, one group, NCHW,
// constant filters and biases), the second the only reader of the first's
// output, become one fused_conv2d_transpose_pair with each one's bias and
// activation (DBNet's head: 24 channels upsampled by 2 twice, into the
// 1-channel probability map). The map between them, 4 times the input's
// pixels, is then never stored. Results differ from the two ops' by float
// rounding only (the kernels sum in their own order).
#include "framework/pass.h"
#include "framework/passes/pass_utils.h"

namespace paddle_lite {
namespace framework {
namespace passes {
namespace {

// True when the op at `index` is a conv2d_transpose of a 4-D float32 input
// whose every input pixel writes its own block of output pixels.
bool PixelBlockDeconvAt(const ProgramDesc& program,
                        const Scope& weights,
                        int index) {
  const OpDesc& op = program.blocks[0].ops[index];
  if (op.type != "conv2d_transpose") return false;
  const std::string input = SoleInput(op, "Input");
  const std::string filter_name = SoleInput(op, "Filter");
  if (input.empty() || filter_name.empty() ||
      SoleOutput(op, "Output").empty() || !IsFloat32Rank4(program, input)) {
    return false;
  }
  const Tensor* filter = ConstantValue(program, weights, filter_name);
  if (filter == nullptr || filter->dtype() != DataType::kFloat32 ||
      filter->dims().size() != 4) {
    return false;
  }
  if (!SlotEmpty(op.inputs, "Bias")) {
    const Tensor* bias = ConstantValue(program, weights, SoleInput(op, "Bias"));
    if (bias == nullptr || bias->dtype() != DataType::kFloat32 ||
        bias->numel() != filter->dims()[1]) {
      return false;
    }
  }
  const std::string layout = GetAttr<std::string>(op, "data_format");
  const std::string algorithm = GetAttr<std::string>(op, "padding_algorithm");
  const auto strides = GetAttr<std::vector<int32_t>>(op, "strides");
  const auto dilations = GetAttr<std::vector<int32_t>>(op, "dilations");
  bool fits = GetAttr<int32_t>(op, "groups") == 1 &&
              (layout == "NCHW" || layout == "AnyLayout") &&
              (algorithm == "EXPLICIT" || algorithm == "VALID") &&
              strides.size() == 2 && strides[0] == filter->dims()[2] &&
              strides[1] == filter->dims()[3] && dilations.size() == 2 &&
              dilations[0] == 1 && dilations[1] == 1 &&
              GetAttr<std::vector<int32_t>>(op, "output_size").empty();
  if (algorithm == "EXPLICIT") {
    for (int32_t pad : GetAttr<std::vector<int32_t>>(op, "paddings")) {
      fits = fits && pad == 0;
    }
  }
  for (int32_t extra : GetAttr<std::vector<int32_t>>(op, "output_padding")) {
    fits = fits && extra == 0;
  }
  return fits;
}

class FuseConv2DTransposePairPass : public Pass {
 public:
  std::vector<std::string> CreatedOpTypes() const override {
    return {"fused_conv2d_transpose_pair"};
  }

  std::vector<std::string> Apply(ProgramDesc* program,
                                 Scope* weights) const override {
    std::vector<std::string> changes;
    BlockDesc& block = program->blocks[0];
    for (int i = 0; i < static_cast<int>(block.ops.size()); ++i) {
      if (!PixelBlockDeconvAt(*program, *weights, i)) continue;
      const std::string between = SoleInput(block.ops[i], "Input");
      const int first = ProducerOf(block, between);
      if (first < 0 || first >= i ||
          !PixelBlockDeconvAt(*program, *weights, first) ||
          SoleOutput(block.ops[first], "Output") != between ||
          !IsIntermediate(*program, between) ||
          SoleConsumer(block, between) != i) {
        continue;
      }
      const OpDesc& a = block.ops[first];
      const OpDesc& b = block.ops[i];
      const std::string input = SoleInput(a, "Input");
      bool rewritten = false;
      for (int w : WritersOf(block, input)) rewritten |= w > first && w < i;
      if (rewritten) continue;
      OpDesc fused;
      fused.type = "fused_conv2d_transpose_pair";
      fused.SetInput("Input", {input});
      fused.SetInput("Filter", {SoleInput(a, "Filter")});
      fused.SetInput("Filter2", {SoleInput(b, "Filter")});
      if (!SlotEmpty(a.inputs, "Bias")) {
        fused.SetInput("Bias", {SoleInput(a, "Bias")});
      }
      if (!SlotEmpty(b.inputs, "Bias")) {
        fused.SetInput("Bias2", {SoleInput(b, "Bias")});
      }
      fused.SetOutput("Output", {SoleOutput(b, "Output")});
      for (const auto& [op, suffix] :
           {std::pair<const OpDesc*, std::string>{&a, ""}, {&b, "2"}}) {
        fused.attrs["fuse_activation" + suffix] =
            GetAttr<std::string>(*op, "fuse_activation");
        fused.attrs["fuse_alpha" + suffix] = GetAttr<float>(*op, "fuse_alpha");
        fused.attrs["fuse_beta" + suffix] = GetAttr<float>(*op, "fuse_beta");
      }
      changes.push_back("fused " + OpLabel(block, first) + " + " +
                        OpLabel(block, i) + " -> " + SoleOutput(b, "Output"));
      block.ops[i] = std::move(fused);
      RemoveOps(&block, {first});
      --i;
    }
    return changes;
  }
};

}  // namespace
}  // namespace passes
}  // namespace framework
}  // namespace paddle_lite

REGISTER_PASS(fuse_conv2d_transpose_pair,
              paddle_lite::framework::passes::FuseConv2DTransposePairPass,
              480);
