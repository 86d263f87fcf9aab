// Runs the blocks of a program. Prepare once: ops are created and a kernel
// is chosen for each (from the declared variable types, so the choice is
// known before any input arrives and `pdlite inspect` can show it). Run
// many: each run infers shapes from the real inputs and calls the kernels.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "framework/kernel_chooser.h"
#include "framework/operator.h"
#include "framework/program_desc.h"
#include "framework/scope.h"
#include "platform/device_context.h"

namespace paddle_lite {
namespace framework {

/// One op of a prepared block with its kernel decision.
struct PreparedOp {
  /// Null when the op type is not registered (see `problem`).
  std::unique_ptr<OperatorBase> op;
  std::string type;
  int index = 0;  // position in the block
  /// Why the op cannot run here: unknown type or no kernel; empty if fine.
  std::string problem;
  /// Set for kernel ops; choice.kernel is null when none fits.
  KernelChoice choice;
};

struct PreparedBlock {
  int block_idx = 0;
  std::vector<PreparedOp> ops;
};

class Executor {
 public:
  /// `program` and `contexts` must outlive the executor.
  Executor(const ProgramDesc& program,
           KernelPreference preference,
           platform::DeviceContextPool* contexts);
  ~Executor();

  /// Creates the ops of a block and chooses their kernels. Throws
  /// Unimplemented listing every op (type, index, dtype) that has no
  /// kernel, all at once. Cached: later calls return the same block.
  const PreparedBlock& Prepare(int block_idx);

  /// Like Prepare but never throws for missing kernels: for inspection.
  const PreparedBlock& PrepareForInspection(int block_idx);

  /// Runs a block in `scope`: creates the block's local variables there
  /// (persistable ones are looked up in ancestors), then runs every op.
  /// Errors are rethrown with the op's type, index and output prefixed.
  void Run(int block_idx, Scope* scope);

  const ProgramDesc& program() const { return program_; }
  const KernelPreference& preference() const { return preference_; }
  platform::DeviceContextPool* contexts() const { return contexts_; }

 private:
  struct BlockState;
  BlockState& State(int block_idx, bool strict);
  void RunOp(const PreparedOp& op, const RuntimeContext& ctx, Scope* scope,
             int block_idx);

  const ProgramDesc& program_;
  KernelPreference preference_;
  platform::DeviceContextPool* contexts_;
  std::mutex mu_;
  std::map<int, std::unique_ptr<BlockState>> blocks_;
};

}  // namespace framework
}  // namespace paddle_lite
