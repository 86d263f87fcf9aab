// Checks and rewrites the graph passes of framework/passes/ share. Private
// to that folder: each pass file includes it, nothing else does.
//
// Vocabulary:
// * an *intermediate* is a block-0 tensor that a pass may rename or drop:
//   not pinned (fetched or persistable), written by exactly one op of
//   block 0 and named by no op of a sub-block;
// * a *constant* is a persistable tensor of block 0 whose value is in the
//   weight scope and that no op writes (except, optionally, one allowed
//   op, like batch_norm writing its own running statistics).
#pragma once

#include <string>
#include <vector>

#include "framework/attribute.h"
#include "framework/program_desc.h"
#include "framework/scope.h"
#include "framework/tensor.h"

namespace paddle_lite {
namespace framework {
namespace passes {

/// The single argument of a slot; "" when the slot is absent, empty or
/// holds several variables.
std::string SoleArg(const VarNameMap& slots, const std::string& slot);
inline std::string SoleInput(const OpDesc& op, const std::string& slot) {
  return SoleArg(op.inputs, slot);
}
inline std::string SoleOutput(const OpDesc& op, const std::string& slot) {
  return SoleArg(op.outputs, slot);
}
/// True if the slot is absent or lists no variable.
bool SlotEmpty(const VarNameMap& slots, const std::string& slot);

/// Attribute `name` of `op`, or the default its op type registered when
/// the program omits it. Throws NotFound if neither exists.
template <typename T>
T GetAttr(const OpDesc& op, const std::string& name);

/// Ops of block 0 that write `name`, by index.
std::vector<int> WritersOf(const BlockDesc& block, const std::string& name);
/// True if any op of a sub-block (block 1 and later) names `name`.
bool UsedInSubBlock(const ProgramDesc& program, const std::string& name);
/// True if some op with index in (after, before) reads or writes `name`.
bool TouchedBetween(const BlockDesc& block,
                    const std::string& name,
                    int after,
                    int before);

/// See the header comment.
bool IsIntermediate(const ProgramDesc& program, const std::string& name);
/// The index of the only op of block 0 that reads `name` (reading it
/// once, in one slot); -1 if there are none or several.
int SoleConsumer(const BlockDesc& block, const std::string& name);
/// True if the op at `producer` may write `name` (the output of a later op
/// `consumer` that is fused into it) instead: `name` is written only by
/// `consumer`, is not persistable, and no op between the two reads it.
bool CanMoveOutput(const ProgramDesc& program,
                   const std::string& name,
                   int producer,
                   int consumer);

/// The value of a constant (see the header comment); nullptr if `name` is
/// not one. `allowed_writer` is an op index that may write it, or -1.
const Tensor* ConstantValue(const ProgramDesc& program,
                            const Scope& weights,
                            const std::string& name,
                            int allowed_writer = -1);

/// A convolution whose weights a fold may rewrite (see FoldableConvAt).
struct FoldableConv {
  bool transposed = false;  // conv2d_transpose: Filter [Cin, M / groups, ..]
  const Tensor* filter = nullptr;
  const Tensor* bias = nullptr;  // null: no Bias bound
  DataType dtype = DataType::kFloat32;
  int64_t groups = 1;
  int64_t channels = 0;  // output channels
};

/// Fills `conv` when the op at `index` is a conv2d or depthwise_conv2d (or,
/// with `transposed_too`, a conv2d_transpose) in NCHW without ResidualData,
/// whose Filter is a rank-4 float32 or float64 constant and whose Bias, if
/// bound, a constant of one value per output channel of that dtype.
bool FoldableConvAt(const ProgramDesc& program,
                    const Scope& weights,
                    int index,
                    bool transposed_too,
                    FoldableConv* conv);

/// Gives the convolution at `conv` the new constants `filter` and `bias`
/// (named after its filter plus `suffix`, and `suffix` + "_bias"), makes
/// it write `output`, and removes the ops `folded` into it. Returns
/// "Filter '<name>', Bias '<name>'" for the change line.
std::string ReplaceConvWeights(ProgramDesc* program,
                               Scope* weights,
                               int conv,
                               const std::string& suffix,
                               Tensor filter,
                               Tensor bias,
                               const std::string& output,
                               const std::vector<int>& folded);

/// For an elementwise_add at `add` that adds a constant to `conv_out`, the
/// output of an NCHW convolution with `channels` output channels: the
/// constant if it is one value per channel ([M] with axis 1, [1, M, 1, 1],
/// ...) of the convolution's dtype, else nullptr.
const Tensor* ChannelBiasOfAdd(const ProgramDesc& program,
                               const Scope& weights,
                               int add,
                               const std::string& conv_out,
                               int64_t channels,
                               DataType dtype);

/// For an elementwise op of type `type` at `index` that combines
/// `conv_out` (its X, the output of an NCHW convolution with `channels`
/// output channels) with a constant Y: that constant if it holds one value
/// per channel (as ChannelBiasOfAdd takes) or a single value (every dim 1,
/// rank <= 4; for an add or mul it may be X instead), of the convolution's
/// dtype; else nullptr.
const Tensor* ChannelOrScalarConstantOf(const ProgramDesc& program,
                                        const Scope& weights,
                                        int index,
                                        const std::string& type,
                                        const std::string& conv_out,
                                        int64_t channels,
                                        DataType dtype);

/// The fuse_activation, fuse_alpha and fuse_beta attributes that express
/// the activation op `op` in a fused op (table in
/// operators/fused_activation.h); false if they cannot (not an activation,
/// or a hard_swish with other than Paddle's fixed 6, 6, 3).
bool FusedActivationAttrs(const OpDesc& op, AttributeMap* attrs);

/// `base`, or `base` + "_1", "_2", ... : the first name neither declared
/// in any block nor present in `weights`.
std::string UniqueVarName(const ProgramDesc& program,
                          const Scope& weights,
                          const std::string& base);
/// Stores `value` (a CPU tensor) as the persistable variable `name`: in
/// `weights` and as a declaration in block 0 (dtype and dims of `value`).
void AddConstant(ProgramDesc* program,
                 Scope* weights,
                 const std::string& name,
                 Tensor value);

/// Replaces `from` by `to` in the output slots of `op`.
void RenameOutputOf(OpDesc* op, const std::string& from, const std::string& to);

/// Shortest text of a number for change lines ("0.7", not "0.700000").
std::string NumberText(double value);

/// "conv2d #12": an op of block 0 for the change lines of a pass.
std::string OpLabel(const BlockDesc& block, int index);

/// True if `name` is a 4-D float32 tensor of block 0.
bool IsFloat32Rank4(const ProgramDesc& program, const std::string& name);

/// The index of the nearest_interp_v2 that writes `name` for the op at
/// `consumer`, its only reader, when that op can read its source (its X,
/// unchanged until `consumer`) through the nearest index instead: the
/// size comes from the scale attribute alone (two positive values, *scale_h
/// and *scale_w; no OutSize, SizeTensor or Scale input), no
/// align_corners, NCHW, 4-D float32. -1 otherwise.
int NearestUpsamplingFor(const ProgramDesc& program,
                         const std::string& name,
                         int consumer,
                         float* scale_h,
                         float* scale_w);

}  // namespace passes
}  // namespace framework
}  // namespace paddle_lite
