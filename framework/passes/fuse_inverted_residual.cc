// fuse_inverted_residual: MobileNet v2/v3's inverted residual block without
// squeeze-excitation, three convolutions in a row, becomes one
// fused_inverted_residual: a 1x1 convolution that expands the channels
// (stride 1, no padding, one group), a depthwise convolution of its
// output (one filter per channel, no dilation), and a 1x1 convolution
// that projects that, with or without a residual (fuse_conv_residual's
// ResidualData); each with its bias and activation, NCHW, constant
// filters and biases, each map read only by the next convolution. The
// expanded and depthwise maps are then never stored: a detector's
// backbone at 896x896 writes and reads a 448x448x32 map (25.7 MB) for its
// second block alone. Results differ from the three ops' by float
// rounding only.
//
// Swish is left alone: the kernel's loops do not compute it in place (the
// three convolutions then keep oneDNN's).
#include "framework/pass.h"
#include "framework/passes/pass_utils.h"

namespace paddle_lite {
namespace framework {
namespace passes {
namespace {

// A convolution the block may hold, as the pass reads it.
struct ConvAt {
  std::string input;
  std::string output;
  std::string residual;            // ResidualData; "" if none
  const Tensor* filter = nullptr;  // rank-4 float32 constant
};

// The fused activation of a conv op ("" for conv2d and depthwise_conv2d).
std::string ActivationOf(const OpDesc& op) {
  return op.type == "fused_conv2d" ? GetAttr<std::string>(op, "fuse_activation")
                                   : std::string();
}

// True when the op at `index` is a convolution of a 4-D float32 NCHW
// input with a constant float32 filter, a constant bias of one value per
// output channel if any, no residual (unless `residual_too`: then a 4-D
// float32 one), and an activation other than swish; fills `conv`.
bool ConvOpAt(const ProgramDesc& program,
              const Scope& weights,
              int index,
              bool residual_too,
              ConvAt* conv) {
  const OpDesc& op = program.blocks[0].ops[index];
  if (op.type != "conv2d" && op.type != "depthwise_conv2d" &&
      op.type != "fused_conv2d") {
    return false;
  }
  conv->input = SoleInput(op, "Input");
  conv->output = SoleOutput(op, "Output");
  const std::string filter_name = SoleInput(op, "Filter");
  if (conv->input.empty() || conv->output.empty() || filter_name.empty() ||
      !IsFloat32Rank4(program, conv->input)) {
    return false;
  }
  if (!SlotEmpty(op.inputs, "ResidualData")) {
    conv->residual = SoleInput(op, "ResidualData");
    if (!residual_too || conv->residual.empty() ||
        !IsFloat32Rank4(program, conv->residual)) {
      return false;
    }
  }
  conv->filter = ConstantValue(program, weights, filter_name);
  if (conv->filter == nullptr || conv->filter->dtype() != DataType::kFloat32 ||
      conv->filter->dims().size() != 4) {
    return false;
  }
  if (!SlotEmpty(op.inputs, "Bias")) {
    const Tensor* bias = ConstantValue(program, weights, SoleInput(op, "Bias"));
    if (bias == nullptr || bias->dtype() != DataType::kFloat32 ||
        bias->numel() != conv->filter->dims()[0]) {
      return false;
    }
  }
  const std::string layout = GetAttr<std::string>(op, "data_format");
  return (layout == "NCHW" || layout == "AnyLayout") &&
         ActivationOf(op) != "swish";
}

// ConvOpAt for a 1x1 convolution of stride 1 and no padding in one group;
// `residual_too` for the block's projection.
bool PointwiseConvAt(const ProgramDesc& program,
                     const Scope& weights,
                     int index,
                     bool residual_too,
                     ConvAt* conv) {
  if (!ConvOpAt(program, weights, index, residual_too, conv)) return false;
  const OpDesc& op = program.blocks[0].ops[index];
  const DDim& f = conv->filter->dims();
  const auto strides = GetAttr<std::vector<int32_t>>(op, "strides");
  bool fits = f[2] == 1 && f[3] == 1 && GetAttr<int32_t>(op, "groups") == 1 &&
              strides.size() == 2 && strides[0] == 1 && strides[1] == 1;
  if (GetAttr<std::string>(op, "padding_algorithm") == "EXPLICIT") {
    for (int32_t pad : GetAttr<std::vector<int32_t>>(op, "paddings")) {
      fits = fits && pad == 0;
    }
  }
  return fits;
}

// ConvOpAt for a depthwise convolution: one filter per channel
// ([E, 1, KH, KW] with groups E), no dilation, no residual.
bool DepthwiseConvAt(const ProgramDesc& program,
                     const Scope& weights,
                     int index,
                     ConvAt* conv) {
  if (!ConvOpAt(program, weights, index, /*residual_too=*/false, conv)) {
    return false;
  }
  const OpDesc& op = program.blocks[0].ops[index];
  const DDim& f = conv->filter->dims();
  const auto dilations = GetAttr<std::vector<int32_t>>(op, "dilations");
  return f[1] == 1 && GetAttr<int32_t>(op, "groups") == f[0] &&
         dilations.size() == 2 && dilations[0] == 1 && dilations[1] == 1;
}

class FuseInvertedResidualPass : public Pass {
 public:
  std::vector<std::string> CreatedOpTypes() const override {
    return {"fused_inverted_residual"};
  }

  std::vector<std::string> Apply(ProgramDesc* program,
                                 Scope* weights) const override {
    std::vector<std::string> changes;
    BlockDesc& block = program->blocks[0];
    for (int i = 0; i < static_cast<int>(block.ops.size()); ++i) {
      ConvAt project, depthwise, expand;
      if (!PointwiseConvAt(*program, *weights, i, /*residual_too=*/true,
                           &project)) {
        continue;
      }
      const int dw = ProducerOf(block, project.input);
      if (dw < 0 || dw >= i ||
          !DepthwiseConvAt(*program, *weights, dw, &depthwise) ||
          depthwise.output != project.input ||
          !IsIntermediate(*program, project.input) ||
          SoleConsumer(block, project.input) != i) {
        continue;
      }
      const int ex = ProducerOf(block, depthwise.input);
      if (ex < 0 || ex >= dw ||
          !PointwiseConvAt(*program, *weights, ex, /*residual_too=*/false,
                           &expand) ||
          expand.output != depthwise.input ||
          !IsIntermediate(*program, depthwise.input) ||
          SoleConsumer(block, depthwise.input) != dw) {
        continue;
      }
      const int64_t expanded = expand.filter->dims()[0];
      if (depthwise.filter->dims()[0] != expanded ||
          project.filter->dims()[1] != expanded) {
        continue;
      }
      // The fused op reads the block's input where the projection ran,
      // and a band at a time while it writes its output: no op from the
      // expansion to the projection (itself included) may write it.
      bool rewritten = false;
      for (int w : WritersOf(block, expand.input)) {
        rewritten |= w > ex && w <= i;
      }
      if (rewritten) continue;
      const OpDesc& a = block.ops[ex];
      const OpDesc& b = block.ops[dw];
      const OpDesc& c = block.ops[i];
      OpDesc fused;
      fused.type = "fused_inverted_residual";
      fused.SetInput("Input", {expand.input});
      for (const auto& [op, prefix] :
           {std::pair<const OpDesc*, std::string>{&a, ""},
            {&b, "Depthwise"},
            {&c, "Project"}}) {
        fused.SetInput(prefix + "Filter", {SoleInput(*op, "Filter")});
        if (!SlotEmpty(op->inputs, "Bias")) {
          fused.SetInput(prefix + "Bias", {SoleInput(*op, "Bias")});
        }
      }
      if (!project.residual.empty()) {
        fused.SetInput("ResidualData", {project.residual});
      }
      fused.SetOutput("Output", {project.output});
      for (const char* attr : {"strides", "paddings", "dilations"}) {
        fused.attrs[attr] = GetAttr<std::vector<int32_t>>(b, attr);
      }
      fused.attrs["padding_algorithm"] =
          GetAttr<std::string>(b, "padding_algorithm");
      fused.attrs["groups"] = GetAttr<int32_t>(b, "groups");
      fused.attrs["data_format"] = std::string("NCHW");
      for (const auto& [op, suffix] :
           {std::pair<const OpDesc*, std::string>{&a, ""},
            {&b, "2"},
            {&c, "3"}}) {
        const bool has = op->type == "fused_conv2d";
        fused.attrs["fuse_activation" + suffix] = ActivationOf(*op);
        fused.attrs["fuse_alpha" + suffix] =
            has ? GetAttr<float>(*op, "fuse_alpha") : 0.0f;
        fused.attrs["fuse_beta" + suffix] =
            has ? GetAttr<float>(*op, "fuse_beta") : 0.0f;
      }
      changes.push_back("fused " + OpLabel(block, ex) + " + " +
                        OpLabel(block, dw) + " + " + OpLabel(block, i) +
                        " -> " + project.output);
      block.ops[i] = std::move(fused);
      RemoveOps(&block, {ex, dw});
      i -= 2;
    }
    return changes;
  }
};

}  // namespace
}  // namespace passes
}  // namespace framework
}  // namespace paddle_lite

REGISTER_PASS(fuse_inverted_residual,
              paddle_lite::framework::passes::FuseInvertedResidualPass,
              490);
