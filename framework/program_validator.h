// Load-time checks of a parsed program, before any pass or kernel reads
// it: a file that parses may still carry hostile values (an axis of
// 2^31-1, a dim of INT_MIN, a padding of a million), and the graph passes
// index with them before any op's shape inference would object.
#pragma once

#include <map>
#include <set>
#include <string>

#include "framework/program_desc.h"

namespace paddle_lite {
namespace framework {

/// Highest tensor rank a program may declare or an axis may name
/// (PaddlePaddle's own limit).
constexpr int kMaxRank = 9;

/// How deep sub-blocks may nest below the main block (real programs nest a
/// few levels: a conditional inside a loop).
constexpr int kMaxBlockDepth = 64;

/// Throws InvalidArgument naming `source`, the block, the op (type and
/// index) or variable, the attribute and its value when:
/// - a block's parent or a sub-block attribute points at no block, a
///   sub-block does not come after the block of the op that names it, or
///   blocks run one another more than kMaxBlockDepth deep;
/// - a variable declares more than kMaxRank dims, a dim below -1, or dims
///   whose element count overflows;
/// - a registered op does not fit its definition (slots, attribute types,
///   the attribute checks its Maker declares);
/// - strides, dilations, groups or ksize are below 1, paddings are
///   negative, a convolution's explicit padding exceeds its dilated filter
///   or a pooling padding its window, groups do not divide the filter's
///   output channels;
/// - an axis-like attribute (axis, axes, start_axis, ...) lies outside the
///   declared rank of the op's input (kMaxRank when undeclared).
/// Ops whose type is not registered are left to the executor, which
/// names them when it prepares the block (a plugin may add them).
void ValidateProgram(const ProgramDesc& program, const std::string& source);

/// The weights (block 0's persistable tensors) that the program's ops
/// write, each with its first writer ("block 0, op #3 (scale), output
/// Out"). A predictor's clones share their weights, so the executor gives
/// each run its own copy of these, made from the loaded values
/// (executor.h), and the graph passes, which fold weights' values, leave
/// such a program alone. Writing a view of a weight (an output declared
/// ViewOf, as reshape2's) writes the weight; outputs declared NeverWritten
/// (batch_norm's MeanOut and VarianceOut, in every real program) do not
/// count. Every output of an unregistered op counts.
std::map<std::string, std::string> WrittenWeights(const ProgramDesc& program);

/// WrittenWeights for any set of names (`names`, such as the program's
/// inputs): those an op writes, directly or through a view of them, each
/// with its first writer. Ops of type `skipped_op` (the feed op, whose Out
/// is the input itself) are not counted.
std::map<std::string, std::string> WrittenVars(
    const ProgramDesc& program,
    const std::set<std::string>& names,
    const std::string& skipped_op = "");

}  // namespace framework
}  // namespace paddle_lite
